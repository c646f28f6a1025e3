import { RateLimiter } from '../../src/http/rate-limiter.js';

/** A RateLimiter on a virtual clock: its waits move the clock instead of taking time. */
export function virtualLimiter(limit: number) {
  const clock = { now: 0 };
  const limiter = new RateLimiter({
    limit,
    windowMs: 1000,
    now: () => clock.now,
    sleep: async (ms) => {
      clock.now += ms;
    },
  });
  return { clock, limiter };
}
