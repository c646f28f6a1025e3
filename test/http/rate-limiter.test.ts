import { describe, expect, it } from 'vitest';
import { AbortError } from '../../src/http/errors.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';

describe('RateLimiter', () => {
  it('never lets more than `limit` requests start within any window', async () => {
    const limiter = new RateLimiter({ limit: 5, windowMs: 200 });
    const starts: number[] = [];
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: 12 }, () => limiter.acquire().then(() => starts.push(Date.now() - t0))),
    );
    starts.sort((a, b) => a - b);
    for (let i = 0; i + 5 < starts.length; i++) {
      // the 6th start after any start is at least one window later
      expect((starts[i + 5] as number) - (starts[i] as number)).toBeGreaterThanOrEqual(195);
    }
    expect(starts[4]).toBeLessThan(100);
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

  it('reports how many slots are free', async () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 3, windowMs: 1000, now: () => now });
    await limiter.acquire();
    await limiter.acquire();
    expect(limiter.available()).toBe(1);
    now = 1000;
    expect(limiter.available()).toBe(3);
  });

  it('rejects a non-positive limit', () => {
    expect(() => new RateLimiter({ limit: 0 })).toThrow(/positive integer/);
  });
});
