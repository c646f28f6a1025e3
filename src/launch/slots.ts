/**
 * This process's view of each account's concurrent-session limit, so launches beyond it wait
 * here instead of each asking the service and sleeping a full Retry-After. The limit is learned
 * from a 429's body (`limit`, browser-api.md); a launch that got one waits for a session of this
 * process on the account to end (the moment a slot is surely free) and then tries again at once;
 * one that arrives while this process holds the limit queues without asking at all. Sessions of
 * other processes are invisible here, so every wait also ends after the service's Retry-After
 * (else the SLOT_WAIT backoff): the queue saves requests and time, never correctness. One
 * AccountSlots per account (`accountKeyOf`: origin and a hash of the token), held by the
 * process's registry (`tracker.slotsOf`): every client of one account shares its queue. A slot is held by the create, then by the session's
 * lease, which releases it when the session is deleted or handed over.
 */
import type { CallScope } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import type { RateLimitError } from '../http/errors.js';
import { sleep } from '../http/node-builtins.js';
import { retryDelay, SLOT_WAIT } from '../http/retry-policy.js';
import { LaunchError } from './errors.js';

const debug = createDebug('launch');

/** One taken slot: a create in flight, then the session it made. Release exactly once. */
export interface Slot {
  /**
   * The create failed or the session ended. `wake: false` when the service refused the create
   * (429): the slot was never the service's, so no waiter may take it as freed.
   */
  release(options?: { wake?: boolean }): void;
}

interface Waiter {
  grant(): void;
}

export class AccountSlots {
  /** The service's limit as its last 429 said; unknown until then. */
  limit: number | undefined;
  /** Creates in flight plus live sessions of this process on this account. */
  held = 0;
  /**
   * Whether the last 429 counted sessions that are not ours (`current_usage` above what we
   * hold): only then can a slot free up unseen, and a wait also ends after the Retry-After.
   */
  othersHold = true;
  readonly waiters: Waiter[] = [];

  take(): Slot {
    this.held++;
    let released = false;
    return {
      release: ({ wake = true } = {}) => {
        if (released) return;
        released = true;
        this.held--;
        if (wake) this.waiters.shift()?.grant();
      },
    };
  }

  get full(): boolean {
    return this.limit !== undefined && this.held >= this.limit;
  }

  /** Remembers what a 429 said: the account's `limit`, and whether `current_usage` is all ours. */
  learn(limit: number | undefined, currentUsage: number | undefined): void {
    if (typeof limit === 'number' && Number.isInteger(limit) && limit > 0) this.limit = limit;
    this.othersHold = currentUsage === undefined || currentUsage > this.held || this.held === 0;
  }
}

/**
 * Takes a slot for a create. `queue`: while this process holds the learned limit, wait (in
 * order) for one of its sessions to end, or at most `fallbackMs`, bounded by the launch's
 * scope. Without `queue` (a pre-warm, or a launch whose wait after a 429 just ended: woken, it
 * holds the turn a session's end gave it) the slot is taken at once.
 */
export async function takeSlot(
  slots: AccountSlots,
  options: { queue: boolean; fallbackMs: number; scope: CallScope; what: string },
): Promise<Slot> {
  if (options.queue && (slots.full || slots.waiters.length > 0)) {
    const fallback = slots.othersHold ? options.fallbackMs : untilDeadline(options.scope);
    await waitForTurn(slots, fallback, options.scope, options.what);
  }
  return slots.take();
}

/**
 * After a 429 on create (the service created nothing, so trying again is safe): waits before
 * create attempt `attempt + 1` until a session of ours on the account ends, or per Retry-After
 * for slots others free, or throws when no slot came before the deadline.
 */
export async function waitForSlot(
  error: RateLimitError,
  attempt: number,
  scope: CallScope,
  what: string,
  slots: AccountSlots,
): Promise<void> {
  slots.learn(error.limit, error.currentUsage);
  // When every session counted is ours, only one of ours ending frees a slot: wait for that.
  const wait = slots.othersHold
    ? (retryDelay(attempt, error.retryAfterMs, SLOT_WAIT) ?? Number.POSITIVE_INFINITY)
    : Number.POSITIVE_INFINITY;
  const left = untilDeadline(scope);
  // A session of ours may end before the Retry-After does: then it is worth waiting for.
  const ours = slots.held;
  const stayedFull = () =>
    new LaunchError(
      `${what}: the account's concurrent-session limit (${error.limit ?? '?'}) stayed full until the launch timed out`,
      { cause: error },
    );
  if (wait > left && ours === 0) throw stayedFull();
  debug(
    `session limit reached (${error.currentUsage}/${error.limit}, ${ours} of them this process's); ` +
      `waiting for one of ours to end, at most ${Math.round(Math.min(wait, left))}ms`,
  );
  const woken = await waitForTurn(slots, Math.min(wait, left - 1), scope, what);
  if (!woken && wait > left) throw stayedFull();
}

/** The time left in `scope` (capped to what a timer can hold: no deadline waits for a wake-up). */
export function untilDeadline(scope: CallScope): number {
  return Math.min(scope.deadline - Date.now(), 2 ** 31 - 1);
}

/**
 * Waits until one of this process's sessions on the account ends, or at most `fallbackMs` (the
 * Retry-After after a 429: others' sessions end unseen), bounded by the scope. Resolves true
 * when woken by a session of ours ending, false after `fallbackMs`.
 */
export async function waitForTurn(
  slots: AccountSlots,
  fallbackMs: number,
  scope: CallScope,
  what: string,
): Promise<boolean> {
  const woken = new AbortController();
  const waiter: Waiter = { grant: () => woken.abort() };
  slots.waiters.push(waiter);
  try {
    await sleep(Math.min(Math.max(0, fallbackMs), 2 ** 31 - 1), undefined, {
      signal: AbortSignal.any([scope.signal, woken.signal]),
    });
    return false;
  } catch (error) {
    if (scope.signal.aborted) throw scope.abortError(what);
    if (woken.signal.aborted) return true;
    throw error;
  } finally {
    const at = slots.waiters.indexOf(waiter);
    if (at >= 0) slots.waiters.splice(at, 1);
  }
}
