/**
 * Client-side rate limiting per endpoint group (e.g. the account service's 20 submits/min and
 * 100 balance+results/min), shared by every caller that holds the same limiter.
 *
 * A token bucket whose tokens come back exactly one window after they were spent (a sliding
 * window log). A classic bucket that refills continuously admits `capacity + rate × window`
 * requests in a window, which would break "20 per minute" however the service counts; this one
 * never lets more than `limit` requests start within any `windowMs`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AbortError } from './errors.js';

export interface RateLimiterOptions {
  /** Requests allowed in any window. */
  limit: number;
  /** Window length in ms. Default 60000. */
  windowMs?: number;
  /** Clock (tests). Default `Date.now`. */
  now?: () => number;
}

export class RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #now: () => number;
  /** Start times of the requests inside the current window, oldest first. */
  readonly #starts: number[] = [];
  /** Waiters are served in order, so a burst of callers is not reordered. */
  #queue: Promise<void> = Promise.resolve();

  constructor(options: RateLimiterOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) {
      throw new RangeError('RateLimiter: limit must be a positive integer');
    }
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Resolves when one more request may start; rejects with AbortError when `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.#queue.then(() => this.#take(signal));
    // A waiter that aborts must not block the ones behind it.
    this.#queue = turn.catch(() => {});
    return turn;
  }

  /** How many requests could start right now without waiting. */
  available(): number {
    this.#expire();
    return this.limit - this.#starts.length;
  }

  #expire(): void {
    const cutoff = this.#now() - this.windowMs;
    while (this.#starts.length > 0 && (this.#starts[0] as number) <= cutoff) this.#starts.shift();
  }

  async #take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw new AbortError('rate limiter: aborted while waiting for a slot');
      this.#expire();
      if (this.#starts.length < this.limit) {
        this.#starts.push(this.#now());
        return;
      }
      const wait = (this.#starts[0] as number) + this.windowMs - this.#now();
      try {
        await sleep(Math.max(1, wait), undefined, { signal });
      } catch {
        throw new AbortError('rate limiter: aborted while waiting for a slot');
      }
    }
  }
}
