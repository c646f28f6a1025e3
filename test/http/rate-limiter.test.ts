import { setTimeout as sleep, setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AbortError, RequestValidationError } from '../../src/http/errors.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { virtualLimiter } from './virtual-limiter.js';

describe('RateLimiter', () => {
  it('never lets more than `limit` requests start within any window', async () => {
    // A virtual clock: grant times are exact, whatever the machine's load.
    let now = 0;
    const limiter = new RateLimiter({
      limit: 5,
      windowMs: 200,
      now: () => now,
      sleep: async (ms, signal) => {
        await new Promise((r) => setImmediate(r)); // let the granted callers record `now` first
        signal.throwIfAborted(); // a sleep cut short (the limiter was woken) moves no time
        now += ms;
      },
    });
    const starts: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, () => limiter.acquire().then(() => starts.push(now))),
    );
    expect(starts).toEqual([0, 0, 0, 0, 0, 200, 200, 200, 200, 200, 400, 400]);
  });

  it('lets the first `limit` requests start at once and the next one only when a slot expires', async () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 3, windowMs: 100, now: () => now });
    // The clock does not move: waiting for the window would never end.
    await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    let fourth = false;
    const next = limiter.acquire().then(() => {
      fourth = true;
    });
    await sleep(30);
    expect(fourth).toBe(false);
    now = 99;
    await sleep(150);
    expect(fourth).toBe(false);
    now = 100;
    await next;
    expect(fourth).toBe(true);
    // The three from time 0 expired; the fourth holds one slot.
    expect(limiter.available()).toBe(2);
  });

  it('serves waiters in arrival order', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 30 });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => limiter.acquire().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('rejects a waiter whose signal aborts, without blocking the next one', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 150 });
    await limiter.acquire();
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal);
    const next = limiter.acquire();
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(AbortError);
    await expect(next).resolves.toBeUndefined();
  });

  it('an aborted hold leaves the queue: the next hold gets the slot, and no slot leaks', async () => {
    // A hold's slot counts until release(): an aborted waiter left in the queue would be granted
    // a slot nobody releases, and the limiter would be stuck for good.
    let now = 0;
    const limiter = new RateLimiter({ limit: 1, windowMs: 100, now: () => now });
    const first = await limiter.hold();
    const controller = new AbortController();
    const aborted = limiter.hold(controller.signal);
    const next = limiter.hold();
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(AbortError);
    first.release();
    now = 100;
    (await next).release();
    now = 200;
    expect(limiter.available()).toBe(1);
  });

  it('reports how many slots are free', async () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 3, windowMs: 1000, now: () => now });
    await limiter.acquire();
    await limiter.acquire();
    expect(limiter.available()).toBe(1);
    now = 1000;
    expect(limiter.available()).toBe(3);
  });

  it('gives each of n pollers n × window / (0.9 × limit) between calls, never less than asked, and more again as they leave', () => {
    const limiter = new RateLimiter({ limit: 100, windowMs: 60_000 });
    const shares = Array.from({ length: 10 }, () => limiter.joinPolling());
    // Ten waits polling every 3 s would need 200 calls a minute of a limit of 100.
    expect(shares[0]?.intervalMs(3000)).toBeCloseTo((10 * 60_000) / 90, 6);
    expect(shares[0]?.intervalMs(10_000)).toBe(10_000);
    for (const share of shares.slice(1)) {
      share.leave();
      share.leave();
    }
    // One poller left: its own interval wins over its share (60000 / 90 ≈ 667 ms).
    expect(shares[0]?.intervalMs(3000)).toBe(3000);
    expect(shares[0]?.intervalMs(100)).toBeCloseTo(60_000 / 90, 6);
  });

  it('rejects a non-positive limit and a window that is not a positive number, naming them', () => {
    expect(() => new RateLimiter({ limit: 0 })).toThrow(/limit: must be a positive integer/);
    expect(() => new RateLimiter({ limit: 2, windowMs: 'x' as never })).toThrow(
      /windowMs: must be a number of ms > 0 \(got "x"\)/,
    );
  });

  describe('with a virtual clock', () => {
    function virtual() {
      let now = 0;
      const sleeps: number[] = [];
      return {
        now: () => now,
        sleep: async (ms: number) => {
          sleeps.push(ms);
          now += ms;
        },
        set: (t: number) => {
          now = t;
        },
        sleeps,
      };
    }

    it('counts a held slot until it is released, then for one window from the release', async () => {
      const clock = virtual();
      const limiter = new RateLimiter({ limit: 1, windowMs: 1000, ...clock });
      const slot = await limiter.hold();
      let second = false;
      const next = limiter.hold().then((s) => {
        second = true;
        return s;
      });
      // A window passes while the first request is still out: no slot yet.
      clock.set(5000);
      await new Promise((r) => setImmediate(r));
      expect(second).toBe(false);
      slot.release(); // the response came in at 5000
      (await next).release();
      expect(clock.now()).toBe(6000);
    });

    it('counts an `acquire` from the moment it was granted', async () => {
      const clock = virtual();
      const limiter = new RateLimiter({ limit: 2, windowMs: 1000, ...clock });
      await limiter.acquire();
      await limiter.acquire();
      await limiter.acquire();
      expect(clock.now()).toBe(1000);
    });

    it('grants nothing before a back-off ends, and serves a `first` waiter ahead of the queue', async () => {
      const clock = virtual();
      const limiter = new RateLimiter({ limit: 10, windowMs: 1000, ...clock });
      limiter.backOff(300);
      expect(limiter.available()).toBe(0);
      const order: string[] = [];
      const a = limiter.hold().then(() => order.push('queued'));
      const b = limiter.hold(undefined, { first: true }).then(() => order.push('retry'));
      await Promise.all([a, b]);
      expect(order).toEqual(['retry', 'queued']);
      expect(clock.now()).toBe(300);
    });
  });
});

/**
 * RateLimiter at its edges, on a clock the test moves: the options it refuses (every problem in one
 * error), a back-off that a shorter or meaningless one cannot cut short, a slot released twice.
 */
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

/**
 * RateLimiter's queue after an abort and after a back-off, pinned by the mutation pass
 * (issue 18), on a virtual clock: the limiter's waits move the clock instead of taking time.
 */
describe('RateLimiter queue', () => {
  it('gives no slot to a waiter that left: the capacity stays whole', async () => {
    const { clock, limiter } = virtualLimiter(1);
    const held = await limiter.hold();
    const controller = new AbortController();
    const leaving = limiter.hold(controller.signal);
    controller.abort();
    await expect(leaving).rejects.toThrow();
    held.release();
    await tick();
    // A slot granted to the waiter that left would be held for ever: none would come back.
    clock.now += 1000;
    expect(limiter.available()).toBe(1);
  });

  it('grants the next slot when a back-off ends, not when the oldest window ends', async () => {
    const { clock, limiter } = virtualLimiter(2);
    await limiter.acquire();
    limiter.backOff(100);
    await limiter.hold();
    expect(clock.now).toBe(100);
  });
});
