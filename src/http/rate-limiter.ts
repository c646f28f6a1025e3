/**
 * Client-side rate limiting per endpoint group (e.g. the account service's 20 submits/min and
 * 100 balance+results/min), shared by every caller that holds the same limiter.
 *
 * A sliding window log: a slot comes back exactly one window after it was used, so no more than
 * `limit` requests fall within any `windowMs`. (A classic bucket that refills continuously admits
 * `capacity + rate × window` in a window, which would break "20 per minute".)
 *
 * The service counts a request when it ARRIVES, and the client only knows when it left. With
 * transit latency that varies (the first request of a window slow, the 21st fast), counting from
 * departure lets the 21st arrive inside the service's window and earn a 429. `hold()` therefore
 * keeps a slot busy until the response is in, and counts its window from then: the response
 * comes after the arrival, so the service's window has always ended when the slot is free again.
 */

import { AbortError, RequestValidationError } from './errors.js';
import { sleep as sleepTimer } from './node-builtins.js';

export interface RateLimiterOptions {
  /** Requests allowed in any window (a positive integer). */
  limit: number;
  /** Window length in ms. Default 60000. */
  windowMs?: number | undefined;
  /** Clock, ms. Default `Date.now`. Tests pass a virtual clock together with `sleep`. */
  now?: (() => number) | undefined;
  /**
   * How the limiter waits `ms` (rejecting when `signal` aborts). Default: a timer. A virtual
   * clock's sleep (advance the clock, resolve) makes an hour of pacing take no real time.
   */
  sleep?: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined;
}

/** A poller's membership of a limiter's fair share (see `RateLimiter.joinPolling`). */
export interface PollingShare {
  /** The pause before this poller's next call: `baseMs`, or longer when its share is smaller. */
  intervalMs(baseMs: number): number;
  /** The poller is done; the others' shares grow. Idempotent. */
  leave(): void;
}

/**
 * Pollers use at most this part of the limit together, so one-off calls (a balance read, a
 * submit's follow-up) still find a slot while many waits run.
 */
const POLLING_SHARE = 0.9;

/** One granted slot of `hold()`: busy until released, then counted for one window. */
export interface RateLimitSlot {
  /** The response is in (or the request failed): the slot's window starts now. Idempotent. */
  release(): void;
}

interface Waiter {
  /** True: the caller must release the slot (see `hold`). */
  held: boolean;
  signal: AbortSignal | undefined;
  resolve(slot: RateLimitSlot): void;
  reject(error: unknown): void;
  onAbort?: () => void;
}

const aborted = () => new AbortError('rate limiter: aborted while waiting for a slot');

export class RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** When each released (or legacy) slot started its window, ascending. */
  readonly #stamps: number[] = [];
  /** Slots handed out by `hold()` and not released yet. */
  #inFlight = 0;
  /** No slot is granted before this instant (the service asked to wait: `backOff`). */
  #blockedUntil = Number.NEGATIVE_INFINITY;
  /** Waiters are served in order, so a burst of callers is not reordered. */
  readonly #waiters: Waiter[] = [];
  #pumping = false;
  /** Wakes the pump when a slot is released or a waiter leaves. */
  #wake: (() => void) | undefined;
  /** Pollers registered with `joinPolling()` and not yet left. */
  #pollers = 0;

  constructor(options: RateLimiterOptions) {
    const issues: { path: string; message: string }[] = [];
    const { limit, windowMs = 60_000 } = options ?? ({} as RateLimiterOptions);
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
      issues.push({ path: 'limit', message: `must be a positive integer (got ${String(limit)})` });
    }
    if (typeof windowMs !== 'number' || !Number.isFinite(windowMs) || windowMs <= 0) {
      issues.push({
        path: 'windowMs',
        message: `must be a number of ms > 0 (got ${JSON.stringify(windowMs) ?? String(windowMs)})`,
      });
    }
    if (issues.length > 0) throw new RequestValidationError('new RateLimiter', issues, 'options');
    this.limit = limit;
    this.windowMs = windowMs;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms, signal) => sleepTimer(ms, undefined, { signal }));
  }

  /**
   * Resolves when one more request may start, counting it from now; rejects with AbortError when
   * `signal` aborts first. Prefer `hold()` for requests whose response you wait for.
   */
  async acquire(signal?: AbortSignal): Promise<void> {
    await this.#enqueue(false, signal, false);
  }

  /**
   * Resolves with a slot when one more request may start. The slot counts as used until
   * `release()` and for one window after it. `first` puts the caller ahead of the queue (a
   * retry of a request that already waited its turn).
   */
  hold(signal?: AbortSignal, options: { first?: boolean } = {}): Promise<RateLimitSlot> {
    return this.#enqueue(true, signal, options.first ?? false);
  }

  /** The service said to wait: no slot is granted for `ms` from now. */
  backOff(ms: number): void {
    if (!(ms > 0)) return;
    this.#blockedUntil = Math.max(this.#blockedUntil, this.#now() + ms);
  }

  /**
   * Registers a poller (e.g. `queries.wait`). While it is registered, its pause between calls is
   * at least its fair share of the window: `pollers × windowMs / (limit × 0.9)`. Without it, ten
   * waits polling every 3 s on 100 per minute spend the whole window in its first 30 s and then
   * all stall until it ends, so a batch that settled at 32 s was seen at 60 s; with it they
   * spread their calls over the window and each sees its batch within one shared interval.
   */
  joinPolling(): PollingShare {
    this.#pollers++;
    let joined = true;
    return {
      intervalMs: (baseMs) =>
        Math.max(baseMs, (this.#pollers * this.windowMs) / (this.limit * POLLING_SHARE)),
      leave: () => {
        if (!joined) return;
        joined = false;
        this.#pollers--;
      },
    };
  }

  /** How many requests could start right now without waiting. */
  available(): number {
    this.#expire();
    if (this.#now() < this.#blockedUntil) return 0;
    return Math.max(0, this.limit - this.#stamps.length - this.#inFlight);
  }

  #enqueue(held: boolean, signal: AbortSignal | undefined, first: boolean): Promise<RateLimitSlot> {
    if (signal?.aborted) return Promise.reject(aborted());
    return new Promise<RateLimitSlot>((resolve, reject) => {
      const waiter: Waiter = { held, signal, resolve, reject };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.#waiters.indexOf(waiter);
          if (index !== -1) this.#waiters.splice(index, 1);
          reject(aborted());
          this.#wake?.();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      if (first) this.#waiters.unshift(waiter);
      else this.#waiters.push(waiter);
      this.#wake?.();
      void this.#pump();
    });
  }

  #expire(): void {
    const cutoff = this.#now() - this.windowMs;
    while (this.#stamps.length > 0 && (this.#stamps[0] as number) <= cutoff) this.#stamps.shift();
  }

  #stamp(at: number): void {
    let i = this.#stamps.length;
    while (i > 0 && (this.#stamps[i - 1] as number) > at) i--;
    this.#stamps.splice(i, 0, at);
  }

  #grant(waiter: Waiter): void {
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    if (!waiter.held) {
      this.#stamp(this.#now());
      waiter.resolve({ release() {} });
      return;
    }
    this.#inFlight++;
    let released = false;
    waiter.resolve({
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight--;
        this.#stamp(this.#now());
        this.#wake?.();
      },
    });
  }

  /** One loop serves the queue head; it sleeps until a window ends or something changes. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#waiters.length > 0) {
        this.#expire();
        const now = this.#now();
        const busy = this.#stamps.length + this.#inFlight;
        if (busy < this.limit && now >= this.#blockedUntil) {
          this.#grant(this.#waiters.shift() as Waiter);
          continue;
        }
        // The earliest instant anything can change by itself; releases wake us earlier.
        let until = this.#blockedUntil;
        if (busy >= this.limit && this.#stamps.length > 0) {
          until = Math.max(until, (this.#stamps[0] as number) + this.windowMs);
        } else if (busy >= this.limit) {
          until = Number.POSITIVE_INFINITY;
        }
        await this.#waitUntil(until - now);
      }
    } finally {
      this.#pumping = false;
    }
  }

  async #waitUntil(ms: number): Promise<void> {
    const stop = new AbortController();
    const woken = new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    try {
      if (Number.isFinite(ms)) {
        await Promise.race([this.#sleep(Math.max(1, ms), stop.signal).catch(() => {}), woken]);
      } else {
        await woken;
      }
    } finally {
      this.#wake = undefined;
      stop.abort();
    }
  }
}
