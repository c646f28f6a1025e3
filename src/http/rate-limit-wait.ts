/**
 * Waiting for a rate-limit slot, the local limiter's or the one a 429 names. Such a wait is not
 * request time: a call queued behind 20 others has not started, so the call's `timeout` does not
 * run while it waits. It is bounded by the caller's signal and by the client's
 * `maxRateLimitWaitMs`, and says so when it gives up.
 */

import { reasonText } from './call-options.js';
import { AbortError, TimeoutError } from './errors.js';
import { sleep } from './node-builtins.js';
import type { RateLimiter, RateLimitSlot } from './rate-limiter.js';

export class RateLimitWait {
  readonly #what: string;
  readonly #caller: AbortSignal | undefined;
  readonly #maxWaitMs: number;
  /** Created at the first wait: the bound covers every wait of one call together. */
  #budget: AbortSignal | undefined;

  constructor(what: string, caller: AbortSignal | undefined, maxWaitMs: number) {
    this.#what = what;
    this.#caller = caller;
    this.#maxWaitMs = maxWaitMs;
  }

  /** A slot of `limiter`; `first` for a retry, which already waited its turn once. */
  async slot(limiter: RateLimiter, first: boolean, sent: boolean): Promise<RateLimitSlot> {
    const signal = this.#signal();
    try {
      return await limiter.hold(signal, { first });
    } catch {
      throw this.#error(sent);
    }
  }

  /** Waits out a 429's Retry-After when there is no limiter to hold the others back. */
  async sleep(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: this.#signal() });
    } catch {
      throw this.#error(true);
    }
  }

  #signal(): AbortSignal | undefined {
    if (Number.isFinite(this.#maxWaitMs)) this.#budget ??= AbortSignal.timeout(this.#maxWaitMs);
    const signals = [this.#caller, this.#budget].filter((s): s is AbortSignal => s !== undefined);
    if (signals.length <= 1) return signals[0];
    return AbortSignal.any(signals);
  }

  #error(sent: boolean): TimeoutError | AbortError {
    const outcome = sent
      ? 'the service refused the request with 429, so it was not carried out'
      : 'nothing was sent';
    if (this.#caller?.aborted) {
      const reason = reasonText(this.#caller.reason);
      return new AbortError(
        `${this.#what}: aborted${reason} while it waited for a rate-limit slot; ${outcome}`,
        { cause: this.#caller.reason },
      );
    }
    return new TimeoutError(
      `${this.#what}: waited for a rate-limit slot for ${this.#maxWaitMs} ms (the maxRateLimitWaitMs option) and gave up; ${outcome}`,
    );
  }
}
