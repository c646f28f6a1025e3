/**
 * The base of every API resource of both clients (sessions, profiles, ..., queries, webhooks):
 * a small class over the shared transport whose methods check their input, build a path with
 * `idSegment()`, and make one request.
 */
import type { Transport } from './transport.js';

export abstract class Resource {
  /** The client's one transport (auth, retries, limits, error mapping). */
  protected readonly transport: Transport;

  constructor(transport: Transport) {
    this.transport = transport;
  }
}
