/**
 * RateLimiter's queue after an abort and after a back-off, pinned by the mutation pass
 * (issue 18), on a virtual clock: the limiter's waits move the clock instead of taking time.
 */
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { virtualLimiter } from './virtual-limiter.js';

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
