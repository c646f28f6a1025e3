/**
 * RateLimiter at its edges, on a clock the test moves: the options it refuses (every problem in one
 * error), a back-off that a shorter or meaningless one cannot cut short, a slot released twice.
 */
import { describe, expect, it } from 'vitest';
import { AbortError, RequestValidationError } from '../../src/http/errors.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';

function clock() {
  let now = 0;
  return {
    now: () => now,
    set: (t: number) => {
      now = t;
    },
  };
}

const refusal = (options: unknown) => {
  try {
    new RateLimiter(options as never);
  } catch (error) {
    return error as RequestValidationError;
  }
  throw new Error('accepted');
};

describe('RateLimiter options', () => {
  it('refuses a limit that is not a positive integer and a window that is not a positive number, all in one error', () => {
    for (const limit of [1.5, '2', -1, Number.NaN]) {
      const error = refusal({ limit });
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(error.issues, String(limit)).toEqual([
        { path: 'limit', message: `must be a positive integer (got ${String(limit)})` },
      ]);
    }
    for (const windowMs of [0, -5, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(refusal({ limit: 1, windowMs }).issues, String(windowMs)).toEqual([
        {
          path: 'windowMs',
          message: `must be a number of ms > 0 (got ${JSON.stringify(windowMs) ?? String(windowMs)})`,
        },
      ]);
    }
    const both = refusal({ limit: 0, windowMs: 'soon' });
    expect(both.message).toBe(
      'new RateLimiter: invalid options: limit: must be a positive integer (got 0); windowMs: must be a number of ms > 0 (got "soon")',
    );
    expect(refusal(undefined).issues.map((i) => i.path)).toEqual(['limit']);
  });

  it('takes the smallest limit and window it allows', () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 1 });
    expect(limiter.limit).toBe(1);
    expect(limiter.windowMs).toBe(1);
    expect(new RateLimiter({ limit: 3 }).windowMs).toBe(60_000);
  });
});

describe('RateLimiter back-off and release', () => {
  it('keeps the longest back-off, and ignores one of 0, a negative or NaN', () => {
    const time = clock();
    const limiter = new RateLimiter({ limit: 5, windowMs: 1000, now: time.now });
    for (const ms of [0, -100, Number.NaN]) limiter.backOff(ms);
    expect(limiter.available()).toBe(5);
    limiter.backOff(500);
    limiter.backOff(100);
    time.set(499);
    expect(limiter.available()).toBe(0);
    time.set(500);
    expect(limiter.available()).toBe(5);
  });

  it('takes an abort that lands between two sleeps of its queue without throwing', async () => {
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    process.on('uncaughtException', onError);
    try {
      // The queue's loop is between two sleeps for a few microtasks after a release; an abort
      // k microtasks after the release lands there for some k.
      for (let k = 0; k < 8; k++) {
        const limiter = new RateLimiter({ limit: 1, windowMs: 60_000 });
        const held = await limiter.hold();
        const controller = new AbortController();
        const waiting = limiter.hold(controller.signal).catch((e: unknown) => e);
        held.release();
        for (let i = 0; i < k; i++) await null;
        controller.abort();
        expect(await waiting, `abort after ${k} microtasks`).toBeInstanceOf(AbortError);
      }
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(errors).toEqual([]);
  });

  it('counts a slot released twice once', async () => {
    const time = clock();
    const limiter = new RateLimiter({ limit: 3, windowMs: 1000, now: time.now });
    const slot = await limiter.hold();
    expect(limiter.available()).toBe(2);
    slot.release();
    slot.release();
    expect(limiter.available()).toBe(2);
    time.set(1000);
    expect(limiter.available()).toBe(3);
  });

  it('refuses a hold whose signal is already aborted, at once and with a free slot', async () => {
    const limiter = new RateLimiter({ limit: 5 });
    const error = await limiter.hold(AbortSignal.abort()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as Error).message).toBe('rate limiter: aborted while waiting for a slot');
    expect(limiter.available()).toBe(5);
  });

  it('queues holds without `first` in arrival order', async () => {
    const time = clock();
    const limiter = new RateLimiter({
      limit: 1,
      windowMs: 1000,
      now: time.now,
      sleep: () => new Promise(() => {}),
    });
    const held = await limiter.hold();
    const order: string[] = [];
    const second = limiter.hold().then((slot) => {
      order.push('second');
      slot.release();
    });
    const third = limiter.hold().then((slot) => {
      order.push('third');
      slot.release();
    });
    time.set(1000);
    held.release();
    time.set(2000);
    await second;
    time.set(3000);
    await third;
    expect(order).toEqual(['second', 'third']);
  });
});
