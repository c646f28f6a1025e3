import { describe, expect, it } from 'vitest';
import { parseRetryAfter, parseRetryAfterSeconds } from '../../src/http/retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');

  it('reads delay-seconds as milliseconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 3 ', now)).toBe(3000);
  });

  it('reads an HTTP-date relative to now', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
  });

  it('never returns a negative wait for a date in the past', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('returns undefined for absent or malformed values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('12abc', now)).toBeUndefined();
  });

  it('reads the body-level retry_after seconds', () => {
    expect(parseRetryAfterSeconds(5)).toBe(5000);
    expect(parseRetryAfterSeconds('7')).toBe(7000);
    expect(parseRetryAfterSeconds(-1)).toBeUndefined();
    expect(parseRetryAfterSeconds({})).toBeUndefined();
  });
});
