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

  it('reads decimal delay-seconds, rounded to the millisecond', () => {
    expect(parseRetryAfter('1.25', now)).toBe(1250);
    expect(parseRetryAfter('0.0005', now)).toBe(1);
  });

  it('reads the obsolete RFC 850 date form, whose hyphens are not a minus sign', () => {
    expect(parseRetryAfter('Saturday, 21-Nov-26 10:01:00 GMT', now)).toBe(60_000);
  });

  it('never reads a negative value as a date, though Date.parse would take it', () => {
    expect(parseRetryAfter('-1 Jan 2027', now)).toBeUndefined();
  });

  it('never reads a value without a weekday or month name as a date', () => {
    expect(parseRetryAfter('2026/11/21 10:00:30', now)).toBeUndefined();
    expect(parseRetryAfter('10 30', now)).toBeUndefined();
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

  it('reads 0 seconds as no wait, and never a number that is not a finite wait', () => {
    expect(parseRetryAfterSeconds(0)).toBe(0);
    expect(parseRetryAfterSeconds(1.5)).toBe(1500);
    expect(parseRetryAfterSeconds(Number.NaN)).toBeUndefined();
    expect(parseRetryAfterSeconds(Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('reads a body-level retry_after given as an HTTP-date', () => {
    // A date long past: the wait is 0 whatever the clock says.
    expect(parseRetryAfterSeconds('Wed, 21 Oct 2015 07:28:00 GMT')).toBe(0);
  });
});
