/**
 * Waiting for a rate-limit slot, the local limiter's or the one a 429 names. Such a wait is not
 * request time: a call queued behind 20 others has not started, so the call's `timeout` does not
 * run while it waits. It is bounded by the caller's signal and by the client's
 * `maxRateLimitWaitMs`, and says so when it gives up.
 */

import { type CallScope, reasonText } from './call-options.js';
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

/**
 * The limiter-slot and 429 steps of one call, around each attempt: before it, a slot of the
 * call's limiter (the wait is not request time: the call's timeout clock stops); after it, the
 * slot back, in one place; after a 429, the back-off (every caller of the limiter holds back,
 * or, without one, this call sleeps, again off the clock).
 */
export class Pacing {
  readonly #limiter: RateLimiter | undefined;
  readonly #scope: CallScope;
  readonly #what: string;
  readonly #wait: RateLimitWait;
  #rateLimited = false;

  constructor(
    spec: { what: string; signal?: AbortSignal | undefined; limiter?: RateLimiter | undefined },
    scope: CallScope,
    maxWaitMs: number,
  ) {
    this.#limiter = spec.limiter;
    this.#scope = scope;
    this.#what = spec.what;
    this.#wait = new RateLimitWait(spec.what, spec.signal, maxWaitMs);
  }

  /** Runs attempt `attempt` holding a slot of the limiter, if any; the slot goes back when it ends. */
  async attempt<T>(attempt: number, send: () => Promise<T>): Promise<T> {
    if (!this.#limiter) return send();
    this.#scope.pause();
    const slot = await this.#wait.slot(this.#limiter, attempt > 0, this.#rateLimited);
    this.#scope.resume();
    try {
      if (this.#scope.signal.aborted) throw this.#scope.abortError(this.#what);
      return await send();
    } finally {
      // The response is in (or none will come): the service has counted it, its window starts.
      slot.release();
    }
  }

  /** A 429 said to wait `delayMs`: the next attempt goes after it. */
  async backOff(delayMs: number): Promise<void> {
    this.#rateLimited = true;
    if (this.#limiter) {
      // Every caller of the limiter holds back until then; the retry goes first.
      this.#limiter.backOff(delayMs);
      return;
    }
    this.#scope.pause();
    await this.#wait.sleep(delayMs);
    this.#scope.resume();
  }
}
