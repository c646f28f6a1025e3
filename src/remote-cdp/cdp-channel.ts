/**
 * The typed CDP vocabulary of remote CDP, and the one thing an adapter provides: a
 * browser-level CDP session of the library it connected with. Playwright:
 * `await browser.newBrowserCDPSession()`; Puppeteer: `await browser.target().createCDPSession()`.
 * Both already have this shape, so an adapter passes its session through `cdpChannel()` and
 * nothing else.
 *
 * Every command and event is typed from the `devtools-protocol` package (a type-only import, as
 * Puppeteer's `CDPSession` does): `send('Fetch.enable', { patterns })` checks its params and
 * types its result, `on('Fetch.requestPaused', (e) => …)` types `e`. No call site casts.
 */
import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping.js';
import { createDebug } from '../http/debug.js';

const debug = createDebug('remote-cdp');

/** Every CDP command by name. */
export type CdpCommands = ProtocolMapping.Commands;
/** Every CDP event by name. */
export type CdpEvents = ProtocolMapping.Events;
export type CdpCommand = keyof CdpCommands;
export type CdpEvent = keyof CdpEvents;
/** A command's params as a rest tuple: `[]`, `[P]` or `[P?]`. */
export type CdpParams<M extends CdpCommand> = CdpCommands[M]['paramsType'];
export type CdpResult<M extends CdpCommand> = CdpCommands[M]['returnType'];
/** An event's params (`undefined` for the few events without any). */
export type CdpEventParams<E extends CdpEvent> = CdpEvents[E] extends [infer P] ? P : undefined;
export type CdpListener<E extends CdpEvent> = (params: CdpEventParams<E>) => unknown;

/** A typed CDP session: the browser-level one (RemoteCdp) and a target's (TargetSession). */
export interface CdpSession {
  /** Sends one command; resolves with its result. */
  send<M extends CdpCommand>(method: M, ...params: CdpParams<M>): Promise<CdpResult<M>>;
  /**
   * Listens to one event; returns the function that stops listening. The listener runs behind
   * the dispatch guard (guardListener): nothing it throws or rejects with escapes.
   */
  on<E extends CdpEvent>(event: E, listener: CdpListener<E>): () => void;
}

/** One command of a batch (setup.ts): sent with the others, awaited with the others. */
export type CdpCall = {
  [M in CdpCommand]: { method: M; params?: CdpParams<M>[0] };
}[CdpCommand];

/** What an adapter provides: the library's browser-level session, untyped at this boundary. */
export interface CdpChannel {
  send(method: string, params?: object): Promise<unknown>;
  on(event: string, listener: (params: never) => void): unknown;
  off(event: string, listener: (params: never) => void): unknown;
  /** Ends the session; the browser connection stays. */
  detach(): Promise<void>;
  /**
   * Sends a command to the flat target session `sessionId` (one the browser-level session
   * auto-attached). Only a connection of our own has it (cdp-connection.ts): a library's
   * browser-level session drops flat child sessions' messages (Playwright's) or owns them.
   */
  sendToSession?(sessionId: string, method: string, params?: object): Promise<unknown>;
  /** Every event of every flat target session (with `sendToSession`); returns how to stop. */
  onSessionEvent?(
    listener: (method: string, params: unknown, sessionId: string) => void,
  ): () => void;
}

/**
 * Narrows a library's CDP session (Playwright's or Puppeteer's `CDPSession`, each typed with
 * its own copy of the protocol) to the channel remote CDP speaks. This is the one place the
 * library's types meet ours; RemoteCdp types everything that goes through it.
 */
export function cdpChannel(session: {
  send(method: never, params?: never): Promise<unknown>;
  on(event: never, listener: never): unknown;
  off(event: never, listener: never): unknown;
  detach(): Promise<void>;
}): CdpChannel {
  const untyped = session as unknown as CdpChannel;
  return {
    send: (method, params) => untyped.send(method, params),
    on: (event, listener) => untyped.on(event, listener),
    off: (event, listener) => untyped.off(event, listener),
    detach: () => untyped.detach(),
  };
}

/**
 * The dispatch guard: every CDP event handler of this layer runs through it. A page, the
 * service or a closed connection can make a handler throw (a malformed payload, a command
 * that fails because the target went away); that is a debug line, never an exception in the
 * library's event emitter, where it would end the user's process.
 */
export function guardListener<P>(
  event: string,
  listener: (params: P) => unknown,
): (params: P) => void {
  return (params) => {
    try {
      const result = listener(params);
      if (result instanceof Promise) {
        result.catch((error: unknown) => debug(`${event} handler failed: ${describe(error)}`));
      }
    } catch (error) {
      debug(`${event} handler failed: ${describe(error)}`);
    }
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Sends every call of `calls` on `session` at once (no call waits for another's answer) and
 * resolves when all are answered: the batch costs one round trip, whatever its length.
 */
export async function sendAll(session: CdpSession, calls: readonly CdpCall[]): Promise<void> {
  // One untyped view for the batch: each CdpCall pairs its method with that method's params.
  const send = session.send.bind(session) as (method: string, params?: object) => Promise<unknown>;
  await Promise.all(calls.map((call) => send(call.method, call.params)));
}
