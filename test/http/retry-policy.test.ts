import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY,
  errorCode,
  nextRetryDelay,
  retryDelay,
  SLOT_WAIT,
  wasNeverSent,
} from '../../src/http/retry-policy.js';

describe('retryDelay', () => {
  it('uses Retry-After as given when it is under the cap', () => {
    expect(retryDelay(0, 4000, DEFAULT_RETRY)).toBe(4000);
  });

  it('gives up when Retry-After exceeds the cap instead of retrying early', () => {
    expect(retryDelay(0, 120_000, { ...DEFAULT_RETRY, maxRetryAfterMs: 60_000 })).toBeUndefined();
  });

  it('waits a Retry-After exactly at the cap', () => {
    expect(retryDelay(0, 60_000, { ...DEFAULT_RETRY, maxRetryAfterMs: 60_000 })).toBe(60_000);
  });

  it('backs off exponentially with full jitter, bounded by maxDelayMs', () => {
    const opts = { ...DEFAULT_RETRY, retries: 10, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelay(0, undefined, opts, () => 1)).toBe(100);
    expect(retryDelay(2, undefined, opts, () => 1)).toBe(400);
    expect(retryDelay(6, undefined, opts, () => 1)).toBe(1000);
    expect(retryDelay(2, undefined, opts, () => 0.5)).toBe(200);
  });

  it('the slot-wait profile: 1 s doubling to 15 s with equal jitter, any Retry-After, no retry count', () => {
    expect(retryDelay(0, undefined, SLOT_WAIT, () => 0)).toBe(500);
    expect(retryDelay(0, undefined, SLOT_WAIT, () => 1)).toBe(1000);
    expect(retryDelay(3, undefined, SLOT_WAIT, () => 1)).toBe(8000);
    expect(retryDelay(4, undefined, SLOT_WAIT, () => 0)).toBe(7500);
    expect(retryDelay(40, undefined, SLOT_WAIT, () => 1)).toBe(15_000);
    // The launch's deadline bounds the wait, not the profile.
    expect(retryDelay(1000, 3_600_000, SLOT_WAIT)).toBe(3_600_000);
  });

  it('stops after the configured number of retries', () => {
    expect(retryDelay(2, undefined, { ...DEFAULT_RETRY, retries: 2 })).toBeUndefined();
  });

  it('knows which connection errors mean the request never left', () => {
    expect(wasNeverSent(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(wasNeverSent(new Error('x', { cause: { code: 'ENOTFOUND' } }))).toBe(true);
    expect(wasNeverSent(new Error('x', { cause: { code: 'ERR_SSL_WRONG_VERSION_NUMBER' } }))).toBe(
      true,
    );
    expect(wasNeverSent(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(false);
    expect(wasNeverSent(new Error('x'))).toBe(false);
  });
});

describe('errorCode', () => {
  const coded = (code: string) => Object.assign(new Error('inner'), { code });
  const wrapped = (inner: unknown, levels: number): unknown => {
    let error = inner;
    for (let i = 0; i < levels; i++) error = new Error(`level ${i}`, { cause: error });
    return error;
  };

  it('finds a code up to four causes deep, and gives up below that', () => {
    expect(errorCode(wrapped(coded('ECONNREFUSED'), 4))).toBe('ECONNREFUSED');
    expect(errorCode(wrapped(coded('ECONNREFUSED'), 5))).toBeUndefined();
  });

  it('stops at a cause that is null or not an object, and on a cycle of causes', () => {
    expect(errorCode(new Error('x', { cause: null }))).toBeUndefined();
    expect(errorCode(new Error('x', { cause: 'ECONNREFUSED' }))).toBeUndefined();
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(errorCode(a)).toBeUndefined();
    expect(wasNeverSent(a)).toBe(false);
  });
});

describe('nextRetryDelay: the retry step, apart from the request loop', () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100 };
  const get = { idempotent: true, unprocessed: new Set<number>(), policy };
  const post = { idempotent: false, unprocessed: new Set<number>(), policy };

  it('retries a connection error of an idempotent call, and of any call that never left', () => {
    expect(nextRetryDelay({}, 0, get)).toBeTypeOf('number');
    expect(nextRetryDelay({ neverSent: true }, 0, post)).toBeTypeOf('number');
    expect(nextRetryDelay({ neverSent: false }, 0, post)).toBeUndefined();
  });

  it('retries a retryable status of an idempotent call, Retry-After first', () => {
    expect(nextRetryDelay({ status: 503, retryAfterMs: 1234 }, 0, get)).toBe(1234);
    expect(nextRetryDelay({ status: 404 }, 0, get)).toBeUndefined();
    expect(nextRetryDelay({ status: 500 }, 0, get)).toBeUndefined();
  });

  it('retries a POST only on a status the service says it did nothing with', () => {
    expect(nextRetryDelay({ status: 429, retryAfterMs: 50 }, 0, post)).toBeUndefined();
    const account = { ...post, unprocessed: new Set([429]) };
    expect(nextRetryDelay({ status: 429, retryAfterMs: 50 }, 0, account)).toBe(50);
    expect(nextRetryDelay({ status: 503, retryAfterMs: 50 }, 0, account)).toBeUndefined();
  });

  it("gives up after the policy's retries", () => {
    expect(nextRetryDelay({ status: 503 }, DEFAULT_RETRY.retries, get)).toBeUndefined();
  });
});
