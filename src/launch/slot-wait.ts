/**
 * Waiting for a free session slot after a 429 on create: the service created nothing, so trying
 * again is safe. Waits until a session of this client on the account ends (slot-queue.ts), or
 * per Retry-After (else the SLOT_WAIT backoff) for slots other clients and processes free,
 * bounded by the launch's deadline and signal.
 */
import type { CallScope } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import type { RateLimitError } from '../http/errors.js';
import { retryDelay, SLOT_WAIT } from '../http/retry-policy.js';
import { LaunchError } from './errors.js';
import { type AccountSlots, untilDeadline, waitForTurn } from './slot-queue.js';

const debug = createDebug('launch');

/** Waits before create attempt `attempt + 1`, or throws when no slot came before the deadline. */
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
