/**
 * The creates a client has on the wire. Each is written to the ledger as an intent (its
 * targeting and the time it left) before the request, so the exit hooks, the watchdog and a
 * later `reap` can reconcile a create whose answer nobody will read; it is settled once the
 * create's outcome is known (a session id, or nothing created, or a reconciliation done). They
 * are kept in the client's registry (launch-registry.ts).
 */
import type { BrowserApi, SessionCreated, SessionCreateParams } from '../browser-api/index.js';
import { nodeCrypto } from '../http/node-builtins.js';
import { type InFlightCreate, registryOf } from './launch-registry.js';
import { type CreateIntent, recordCreated, recordCreateSettled, recordCreating } from './ledger.js';
import { targetingOf } from './orphan-match.js';

export type { InFlightCreate } from './launch-registry.js';

/** Records the intent, then sends the create. A successful create settles it at once. */
export function beginCreate(
  api: BrowserApi,
  body: SessionCreateParams,
  send: () => Promise<SessionCreated>,
): InFlightCreate {
  const registry = registryOf(api);
  const intent: CreateIntent = {
    intent: nodeCrypto().randomUUID(),
    origin: api.origin,
    pid: process.pid,
    at: new Date().toISOString(),
    targeting: targetingOf(body),
  };
  recordCreating(intent);
  let settled = false;
  let call: Promise<SessionCreated> | undefined;
  const record: InFlightCreate = {
    intent,
    api,
    get call() {
      return call as Promise<SessionCreated>;
    },
    settle(createdId?: string) {
      if (settled) return;
      settled = true;
      recordCreateSettled(intent.intent);
      registry.removeCreate(record, createdId);
    },
  };
  // Registered (and the watchdog told) before the request leaves.
  registry.addCreate(record);
  call = send();
  void call.then(
    (created) => {
      // Known before the intent closes, so no reader ever sees neither.
      registry.created.add(created.id);
      recordCreated(created.id, api.origin);
      record.settle(created.id);
    },
    () => {},
  );
  return record;
}
