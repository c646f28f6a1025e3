/**
 * The account service's request-rate limits (rate-limits.ts): a sliding window per account and
 * group on the clock it is given, answered with the 429 a client waits on.
 */
import { describe, expect, it } from 'vitest';
import { AccountRateLimits } from '../../../src/emulator/account-service/rate-limits.js';
import { HttpError } from '../../../src/emulator/server/http-error.js';

function limiter(limits: ConstructorParameters<typeof AccountRateLimits>[0]) {
  let now = 0;
  const limits_ = new AccountRateLimits(limits, () => now);
  return {
    take: limits_.take.bind(limits_),
    reset: () => limits_.reset(),
    at: (t: number) => (now = t),
  };
}

const refusal = (run: () => void): HttpError => {
  try {
    run();
  } catch (error) {
    return error as HttpError;
  }
  throw new Error('expected a 429');
};

describe('AccountRateLimits', () => {
  it('takes the limit in any window and answers the next with a 429 saying when a slot frees', () => {
    const l = limiter({ submit: 2, read: 5, windowMs: 60_000 });
    l.at(0);
    l.take('a', 'submit');
    l.at(10_000);
    l.take('a', 'submit');
    l.at(20_000);
    const error = refusal(() => l.take('a', 'submit'));
    expect(error).toBeInstanceOf(HttpError);
    expect(error.status).toBe(429);
    expect(error.extra).toEqual({ retry_after: 40 });
    expect(error.headers).toEqual({ 'retry-after': '40' });
    expect(error.message).toContain('at most 2 submit requests per minute');
    // The window slides: the first request leaves it at 60 s, the second at 70 s.
    l.at(60_001);
    l.take('a', 'submit');
    expect(refusal(() => l.take('a', 'submit')).extra).toEqual({ retry_after: 10 });
  });

  it('counts each account and each group apart, and a refused request takes no slot', () => {
    const l = limiter({ submit: 1, read: 1, windowMs: 1000 });
    l.take('a', 'submit');
    refusal(() => l.take('a', 'submit'));
    l.take('a', 'read');
    expect(refusal(() => l.take('a', 'read')).message).toContain('balance and results');
    l.take('b', 'submit');
    l.at(1000);
    l.take('a', 'submit');
    l.take('a', 'read');
  });

  it('waits at least a second, takes everything when off, and forgets on reset', () => {
    const l = limiter({ submit: 1, read: 1, windowMs: 100 });
    l.take('a', 'submit');
    expect(refusal(() => l.take('a', 'submit')).extra).toEqual({ retry_after: 1 });
    l.reset();
    l.take('a', 'submit');
    const off = limiter(false);
    for (let i = 0; i < 1000; i++) off.take('a', 'submit');
  });
});
