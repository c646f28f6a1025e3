/**
 * The creates this process has on the wire. Each is written to the ledger as an intent (its
 * targeting and the time it left) before the request, so the exit hooks, the watchdog and a
 * later `reap` can reconcile a create whose answer nobody will read; it is settled once the
 * create's outcome is known (a session id, or nothing created, or a reconciliation done).
 */
import { randomUUID } from 'node:crypto';
import type { BrowserApi, SessionCreated, SessionCreateParams } from '../browser-api/index.js';
import { type CreateIntent, recordCreated, recordCreateSettled, recordCreating } from './ledger.js';
import { targetingOf } from './orphan-match.js';

export interface InFlightCreate {
  readonly intent: CreateIntent;
  readonly api: BrowserApi;
  readonly call: Promise<SessionCreated>;
  /** Marks the intent settled (once): its outcome is known or reconciled. */
  settle(): void;
}

type CreateListener = (intent: CreateIntent, event: 'started' | 'settled') => void;

/** Creates not yet settled, by intent id. */
export const inFlightCreates: Map<string, InFlightCreate> = new Map();
/** Session ids this process has been handed by a create (reconciliation never touches them). */
export const createdHere: Set<string> = new Set();
const listeners = new Set<CreateListener>();

/** Observes creates starting and settling (the watchdog mirrors them). Returns the unsubscribe. */
export function onCreateChange(listener: CreateListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Records the intent, then sends the create. A successful create settles it at once. */
export function beginCreate(
  api: BrowserApi,
  body: SessionCreateParams,
  send: () => Promise<SessionCreated>,
): InFlightCreate {
  const intent: CreateIntent = {
    intent: randomUUID(),
    origin: api.origin,
    pid: process.pid,
    at: new Date().toISOString(),
    targeting: targetingOf(body),
  };
  recordCreating(intent);
  for (const l of listeners) l(intent, 'started');
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    inFlightCreates.delete(intent.intent);
    recordCreateSettled(intent.intent);
    for (const l of listeners) l(intent, 'settled');
  };
  const call = send();
  const record: InFlightCreate = { intent, api, call, settle };
  inFlightCreates.set(intent.intent, record);
  void call.then(
    (created) => {
      // Known before the intent closes, so no reader ever sees neither.
      createdHere.add(created.id);
      recordCreated(created.id, api.origin);
      settle();
    },
    () => {},
  );
  return record;
}
