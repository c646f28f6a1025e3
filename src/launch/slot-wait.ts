/**
 * Waiting for a free session slot after a 429 on create: the service created nothing, so trying
 * again is safe. Waits per Retry-After (else the SLOT_WAIT backoff), bounded by the launch's
 * deadline and signal.
 */
import { type CallScope, waitInScope } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import type { RateLimitError } from '../http/errors.js';
import { retryDelay, SLOT_WAIT } from '../http/retry-policy.js';
import { LaunchError } from './errors.js';

const debug = createDebug('launch');

/** Waits before create attempt `attempt + 1`, or throws when the wait would pass the deadline. */
export async function waitForSlot(
  error: RateLimitError,
  attempt: number,
  scope: CallScope,
  what: string,
): Promise<void> {
  const wait = retryDelay(attempt, error.retryAfterMs, SLOT_WAIT) ?? Number.POSITIVE_INFINITY;
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
}
