/**
 * Creating a session without leaking one:
 * - a 429 (the account's concurrent-session limit) waits per Retry-After, bounded by the
 *   launch's deadline and signal, then tries again: the service did not create anything;
 * - a create whose response was lost (timeout, dropped connection after sending) is never
 *   repeated blindly: the running sessions created since the call that nobody on this machine
 *   knows about and that match the requested targeting are ended, then the error is thrown.
 */
import type {
  BrowserApi,
  SessionCreated,
  SessionCreateParams,
  SessionSummary,
} from '../browser-api/index.js';
import { type CallScope, waitInScope } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import {
  isAbortError,
  isConnectionError,
  isRateLimitError,
  isTimeoutError,
} from '../http/errors.js';
import { LaunchError } from './errors.js';
import { knownIds } from './ledger.js';

const debug = createDebug('launch');

/** Session ids this process has been handed by a create (reconciliation never touches them). */
const createdHere = new Set<string>();
/** Creates in flight in this process: reconciliation waits for them so their sessions are known. */
const inFlight = new Set<Promise<unknown>>();

/** Clock skew tolerated between this machine and the service when matching created_at. */
const SKEW_MS = 60_000;

export interface CreateOptions {
  scope: CallScope;
  waitForSlot: boolean;
  what: string;
  /** Called before each wait for a free slot (progress for the test fixture, logs). */
  onWait?: (info: {
    retryAfterMs: number;
    currentUsage?: number | undefined;
    limit?: number | undefined;
  }) => void;
}

export async function createSession(
  api: BrowserApi,
  body: SessionCreateParams,
  options: CreateOptions,
): Promise<SessionCreated> {
  const { scope, what } = options;
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    const remaining = scope.deadline - Date.now();
    const call = api.sessions.create(body, {
      signal: scope.signal,
      timeout: Number.isFinite(remaining) ? Math.max(1, remaining) : 0,
    });
    inFlight.add(call);
    try {
      const created = await call;
      createdHere.add(created.id);
      return created;
    } catch (error) {
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
        options.onWait?.({
          retryAfterMs: wait,
          currentUsage: error.currentUsage,
          limit: error.limit,
        });
        await waitInScope(wait, scope, what);
        continue;
      }
      const lost =
        isTimeoutError(error) ||
        isAbortError(error) ||
        (isConnectionError(error) && error.requestSent);
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
        {
          cause: error,
          sessionId: ended?.[0],
        },
      );
    } finally {
      inFlight.delete(call);
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
    if (got !== undefined && String(got).toLowerCase() !== String(want).toLowerCase()) return false;
  }
  return true;
}

/**
 * Ends the running sessions that were created since `since`, that no process on this machine
 * has been handed, and whose config matches the request. Returns their ids.
 */
async function reconcile(
  api: BrowserApi,
  body: SessionCreateParams,
  since: number,
): Promise<string[]> {
  // Let this process's other creates finish, so their sessions count as known.
  await Promise.allSettled([...inFlight]);
  const running: SessionSummary[] = await api.sessions.list(
    { status: 'running' },
    { timeout: 15_000 },
  );
  const known = knownIds();
  const orphans = running.filter(
    (s) =>
      !createdHere.has(s.id) &&
      !known.has(s.id) &&
      Date.parse(s.created_at) >= since - SKEW_MS &&
      sameTargeting(s.config as Record<string, unknown> | undefined, body),
  );
  await Promise.all(
    orphans.map((s) => api.sessions.end(s.id, { timeout: 15_000 }).catch(() => undefined)),
  );
  if (orphans.length) debug(`reconciled: ended ${orphans.map((s) => s.id).join(', ')}`);
  return orphans.map((s) => s.id);
}
