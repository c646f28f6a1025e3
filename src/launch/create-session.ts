/**
 * Creating a session without leaking one:
 * - a 429 (the account's concurrent-session limit) waits per Retry-After, bounded by the
 *   launch's deadline and signal, then tries again: the service did not create anything;
 * - the launch's timeout or abort never cuts a create off mid-flight (the service could finish
 *   it a moment later, leaving a session nobody knows). The launch stops waiting and fails at
 *   once; the create keeps running in the background and the session it returns is deleted;
 * - a create whose response was lost (the connection dropped after sending, or the create's own
 *   generous timeout) is never repeated blindly: the running sessions created since the call
 *   that nobody on this machine knows about and that match the requested targeting are ended,
 *   looking twice to catch a create the service finishes late.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  BrowserApi,
  SessionCreated,
  SessionCreateParams,
  SessionSummary,
} from '../browser-api/index.js';
import { type CallScope, waitInScope } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import { isConnectionError, isRateLimitError, isTimeoutError } from '../http/errors.js';
import { LaunchError } from './errors.js';
import { knownIds } from './ledger.js';

const debug = createDebug('launch');

/** Session ids this process has been handed by a create (reconciliation never touches them). */
const createdHere = new Set<string>();
/** Creates in flight in this process: reconciliation waits for them so their sessions are known. */
const inFlight = new Set<Promise<unknown>>();
/** Background clean-ups per client, so a client is closed only after them. */
const cleanups = new WeakMap<BrowserApi, Set<Promise<unknown>>>();

/** Clock skew tolerated between this machine and the service when matching created_at. */
const SKEW_MS = 60_000;
/** The create request's own timeout: long, because cutting it short is what orphans sessions. */
const CREATE_TIMEOUT_MS = 120_000;
/** Second look for a session the service finished creating after the response was lost. */
const RECHECK_AFTER_MS = 2_000;

export interface CreateOptions {
  scope: CallScope;
  waitForSlot: boolean;
  what: string;
}

/** Resolves when every background clean-up started for `api` has settled. */
export function settledCleanups(api: BrowserApi): Promise<void> {
  return Promise.allSettled([...(cleanups.get(api) ?? [])]).then(() => undefined);
}

function track(api: BrowserApi, work: Promise<unknown>): void {
  let set = cleanups.get(api);
  if (!set) {
    set = new Set();
    cleanups.set(api, set);
  }
  const entry = work.catch(() => {});
  set.add(entry);
  void entry.finally(() => set.delete(entry));
}

/** Rejects with the scope's error when it aborts first; `call` itself is never cancelled. */
function untilAborted<T>(call: Promise<T>, scope: CallScope, what: string): Promise<T> {
  if (scope.signal.aborted) return Promise.reject(scope.abortError(what));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(scope.abortError(what));
    scope.signal.addEventListener('abort', onAbort, { once: true });
    call.then(resolve, reject).finally(() => scope.signal.removeEventListener('abort', onAbort));
  });
}

export async function createSession(
  api: BrowserApi,
  body: SessionCreateParams,
  options: CreateOptions,
): Promise<SessionCreated> {
  const { scope, what } = options;
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    const call = api.sessions.create(body, { timeout: CREATE_TIMEOUT_MS });
    inFlight.add(call);
    void call.then(
      (created) => createdHere.add(created.id),
      () => {},
    );
    void call.finally(() => inFlight.delete(call)).catch(() => {});
    try {
      return await untilAborted(call, scope, what);
    } catch (error) {
      if (scope.signal.aborted) {
        // Stop waiting, but let the create finish and delete what it returns.
        track(
          api,
          call.then(async (created) => {
            debug(`deleting session ${created.id}: its launch gave up while it was being created`);
            await api.sessions.end(created.id, { timeout: 30_000 });
          }),
        );
        throw new LaunchError(
          `${what}: ${scope.abortError(what).message.replace(`${what}: `, '')} while the service was creating the session; it will be deleted as soon as the service answers (the create was not retried)`,
          { cause: error },
        );
      }
      if (isRateLimitError(error) && options.waitForSlot) {
        // Retry-After is authoritative; without it, back off 1s, 2s, 4s... up to 15s, with jitter.
        const wait =
          error.retryAfterMs ??
          Math.min(15_000, 1000 * 2 ** Math.min(attempt, 4)) * (0.5 + Math.random() / 2);
        if (Date.now() + wait > scope.deadline) {
          throw new LaunchError(
            `${what}: the account's concurrent-session limit (${error.limit ?? '?'}) stayed full until the launch timed out`,
            { cause: error },
          );
        }
        debug(
          `session limit reached (${error.currentUsage}/${error.limit}); waiting ${Math.round(wait)}ms for a slot`,
        );
        await waitInScope(wait, scope, what);
        continue;
      }
      const lost = isTimeoutError(error) || (isConnectionError(error) && error.requestSent);
      if (!lost) throw error;
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
      throw new LaunchError(
        `${what}: the create request got no answer (${(error as Error).message}); ${outcome}. It was not retried.`,
        { cause: error, sessionId: ended?.[0] },
      );
    }
  }
}

function sameTargeting(
  config: Record<string, unknown> | undefined,
  body: SessionCreateParams,
): boolean {
  if (!config) return true;
  const wanted = body as Record<string, unknown>;
  for (const key of [
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
  ]) {
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
