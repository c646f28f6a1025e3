/**
 * A create whose response was lost (the connection dropped after sending, or the create's own
 * generous timeout) is never repeated blindly: the running sessions created since the call
 * that nobody on this machine knows about and that match the requested targeting are ended,
 * looking twice to catch a create the service finishes late.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  BrowserApi,
  SessionCreated,
  SessionCreateParams,
  SessionSummary,
} from '../browser-api/index.js';
import { createDebug } from '../http/debug.js';
import { isConnectionError, isTimeoutError } from '../http/errors.js';
import { LaunchError } from './errors.js';
import { knownIds } from './ledger.js';

const debug = createDebug('launch');

/** Session ids this process has been handed by a create (reconciliation never touches them). */
const createdHere = new Set<string>();
/** Creates in flight in this process: reconciliation waits for them so their sessions are known. */
const inFlight = new Set<Promise<unknown>>();

/** Clock skew tolerated between this machine and the service when matching created_at. */
const SKEW_MS = 60_000;
/** Second look for a session the service finished creating after the response was lost. */
const RECHECK_AFTER_MS = 2_000;

/** Registers a create on the wire, so a concurrent reconciliation knows the session it returns. */
export function trackCreate(call: Promise<SessionCreated>): void {
  inFlight.add(call);
  void call.then(
    (created) => createdHere.add(created.id),
    () => {},
  );
  void call.finally(() => inFlight.delete(call)).catch(() => {});
}

/** True when the create may have been handled although its answer never arrived. */
export function isLostCreate(error: unknown): boolean {
  return isTimeoutError(error) || (isConnectionError(error) && error.requestSent);
}

/** Ends what the lost create may have left running; returns the launch's error. */
export async function reconcileLostCreate(
  api: BrowserApi,
  body: SessionCreateParams,
  started: number,
  what: string,
  error: unknown,
): Promise<LaunchError> {
  const ended = await reconcile(api, body, started).catch((e: unknown) => {
    debug(`reconciliation failed: ${(e as Error).message}`);
    return undefined;
  });
  const outcome =
    ended === undefined
      ? 'reconciliation could not list the running sessions; run `remote-browser sessions reap` to be sure nothing is left running'
      : ended.length > 0
        ? `the session the service created meanwhile (${ended.join(', ')}) was ended`
        : 'no session was left running';
  return new LaunchError(
    `${what}: the create request got no answer (${(error as Error).message}); ${outcome}. It was not retried.`,
    { cause: error, sessionId: ended?.[0] },
  );
}

const TARGETING_KEYS = [
  'country',
  'region',
  'city',
  'zip',
  'isp',
  'protocol',
  'connection_type',
  'session_type',
  'filter_mode',
  'profile_id',
] as const;

function sameTargeting(
  config: Record<string, unknown> | undefined,
  body: SessionCreateParams,
): boolean {
  if (!config) return true;
  const wanted = body as Record<string, unknown>;
  for (const key of TARGETING_KEYS) {
    const want = wanted[key];
    if (want === undefined) continue;
    const got = config[key];
    if (
      got !== undefined &&
      got !== null &&
      String(got).toLowerCase() !== String(want).toLowerCase()
    )
      return false;
  }
  return true;
}

/**
 * Ends the running sessions that were created since `since`, that no process on this machine
 * has been handed, and whose config matches the request; looks twice, a moment apart, for a
 * create the service completes late. Returns their ids.
 */
async function reconcile(
  api: BrowserApi,
  body: SessionCreateParams,
  since: number,
): Promise<string[]> {
  // Let this process's other creates finish, so their sessions count as known.
  await Promise.allSettled([...inFlight]);
  const ended: string[] = [];
  for (const pause of [0, RECHECK_AFTER_MS]) {
    if (pause) await sleep(pause);
    const running: SessionSummary[] = await api.sessions.list(
      { status: 'running' },
      { timeout: 15_000 },
    );
    const known = knownIds();
    const orphans = running.filter(
      (s) =>
        !createdHere.has(s.id) &&
        !known.has(s.id) &&
        !ended.includes(s.id) &&
        Date.parse(s.created_at) >= since - SKEW_MS &&
        sameTargeting(s.config as Record<string, unknown> | undefined, body),
    );
    await Promise.all(
      orphans.map((s) => api.sessions.end(s.id, { timeout: 15_000 }).catch(() => undefined)),
    );
    ended.push(...orphans.map((s) => s.id));
  }
  if (ended.length) debug(`reconciled: ended ${ended.join(', ')}`);
  return ended;
}
