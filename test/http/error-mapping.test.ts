import { describe, expect, it } from 'vitest';
import { errorFromResponse, parseCredits } from '../../src/http/error-mapping.js';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  isApiError,
  isRateLimitError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  UpstreamError,
} from '../../src/http/errors.js';

const base = { method: 'POST', path: '/api/v2/base/llm/submit/', headers: {} } as const;

describe('errorFromResponse', () => {
  it('maps a 400 with {field: [messages]} to per-field messages', () => {
    const e = errorFromResponse({
      ...base,
      service: 'account',
      status: 400,
      body: {
        questions: ['Ensure this field has no more than 20 elements.'],
        country: ['Not available.'],
      },
    });
    expect(e).toBeInstanceOf(BadRequestError);
    const bad = e as BadRequestError;
    expect(bad.fieldErrors).toEqual({
      questions: ['Ensure this field has no more than 20 elements.'],
      country: ['Not available.'],
    });
    expect(bad.message).toContain('questions: Ensure this field');
    expect(bad.message).toContain('POST /api/v2/base/llm/submit/ → 400');
  });

  it('maps a 400 with a flat error to a BadRequestError without field errors', () => {
    const e = errorFromResponse({
      ...base,
      service: 'browser',
      status: 400,
      body: { error: 'bad protocol' },
    });
    expect((e as BadRequestError).fieldErrors).toBeUndefined();
    expect(e.message).toContain('bad protocol');
  });

  it('explains token expiry on a browser-service 401 and the API key on an account 401', () => {
    const b = errorFromResponse({
      ...base,
      service: 'browser',
      status: 401,
      body: { error: 'Unauthorized' },
    });
    expect(b).toBeInstanceOf(AuthenticationError);
    expect(b.message).toMatch(/valid for 7 days/);
    expect(b.message).toMatch(/REMOTE_BROWSER_TOKEN/);
    const a = errorFromResponse({ ...base, service: 'account', status: 401, body: undefined });
    expect(a.message).toMatch(/Profile section/);
  });

  it('parses required and available credits from a 402 message', () => {
    const e = errorFromResponse({
      ...base,
      service: 'account',
      status: 402,
      body: { error: 'Insufficient credits: 6 required, 2 available.' },
    }) as PaymentRequiredError;
    expect(e).toBeInstanceOf(PaymentRequiredError);
    expect([e.required, e.available]).toEqual([6, 2]);
  });

  it.each([
    ['Insufficient credits. Required: 12, available: 3', 12, 3],
    ['You need 4 credits but have 1', 4, 1],
    ['Not enough credits (required 9, balance 0)', 9, 0],
  ])('reads credits from %j', (message, required, available) => {
    expect(parseCredits(message)).toEqual({ required, available });
  });

  it('maps 403 {detail} and 404 {error}', () => {
    const f = errorFromResponse({
      ...base,
      service: 'account',
      status: 403,
      body: { detail: 'Purchase required' },
    });
    expect(f).toBeInstanceOf(PermissionDeniedError);
    expect(f.message).toContain('Purchase required');
    const n = errorFromResponse({
      ...base,
      service: 'account',
      status: 404,
      body: { error: 'Not found' },
    });
    expect(n).toBeInstanceOf(NotFoundError);
  });

  it('maps a 429 with the limit fields, preferring the Retry-After header', () => {
    const e = errorFromResponse({
      ...base,
      service: 'browser',
      status: 429,
      body: {
        error: 'limit',
        limit_type: 'sessions',
        current_usage: 50,
        limit: 50,
        retry_after: 30,
      },
      headers: { 'retry-after': '12' },
    }) as RateLimitError;
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e.limitType).toBe('sessions');
    expect(e.currentUsage).toBe(50);
    expect(e.limit).toBe(50);
    expect(e.retryAfterMs).toBe(12_000);
  });

  it('falls back to the body retry_after when there is no header', () => {
    const e = errorFromResponse({
      ...base,
      service: 'browser',
      status: 429,
      body: { error: 'x', retry_after: 3 },
    }) as RateLimitError;
    expect(e.retryAfterMs).toBe(3000);
    expect(e.limitType).toBeUndefined();
  });

  it('maps 502, 503 with reason, other 5xx and other 4xx', () => {
    expect(
      errorFromResponse({ ...base, service: 'browser', status: 502, body: { error: 'x' } }),
    ).toBeInstanceOf(UpstreamError);
    const u = errorFromResponse({
      ...base,
      service: 'browser',
      status: 503,
      body: { error: 'off', reason: 'locations_not_configured', retry_after: 60 },
    }) as ServiceUnavailableError;
    expect(u).toBeInstanceOf(ServiceUnavailableError);
    expect([u.reason, u.retryAfterMs]).toEqual(['locations_not_configured', 60_000]);
    expect(
      errorFromResponse({ ...base, service: 'browser', status: 500, body: 'boom' }),
    ).toBeInstanceOf(InternalServerError);
    const teapot = errorFromResponse({ ...base, service: 'browser', status: 418, body: undefined });
    expect(teapot.constructor).toBe(ApiError);
  });

  it('keeps status, method, path, body and request id, and guards match by name too', () => {
    const e = errorFromResponse({
      ...base,
      service: 'browser',
      status: 429,
      body: { error: 'x' },
      headers: { 'x-request-id': 'req-1' },
    });
    expect([e.status, e.method, e.path, e.requestId]).toEqual([429, 'POST', base.path, 'req-1']);
    expect(isRateLimitError(e)).toBe(true);
    expect(isApiError(e)).toBe(true);
    const foreign = Object.assign(new Error('x'), { name: 'RateLimitError' });
    expect(isRateLimitError(foreign)).toBe(true);
    expect(isRateLimitError(new Error('x'))).toBe(false);
  });
});

/**
 * errorFromResponse's and parseCredits' edges, each pinned by the mutation pass (issue 18): the
 * 401 advice per service, which body keys count as field errors, how a message is chosen, the
 * numbers of a 429, and the wordings of a 402 the credit parser must read.
 */
const getBase = { method: 'GET', path: '/p', headers: {} } as const;
const mapped = (status: number, body: unknown, service: 'browser' | 'account' = 'account') =>
  errorFromResponse({ ...getBase, service, status, body });

describe('errorFromResponse edges', () => {
  it('adds only what to set when the service already explains the credential', () => {
    const browser = mapped(401, { error: 'Token expired: tokens are valid for 7 days' }, 'browser');
    expect(browser.message).toBe(
      'GET /p → 401: Token expired: tokens are valid for 7 days (set REMOTE_BROWSER_TOKEN or the `token` option to the current token)',
    );
    const account = mapped(401, { detail: 'Invalid key. Copy it from the Profile section.' });
    expect(account.message).toBe(
      'GET /p → 401: Invalid key. Copy it from the Profile section. (set REMOTE_BROWSER_API_KEY or the `apiKey` option)',
    );
  });

  it("never gives one service's credential advice to the other", () => {
    const account = mapped(401, { detail: 'keys expire after 7 days' });
    expect(account.message).toMatch(/keys expire after 7 days: the account API key is missing/);
    const browser = mapped(401, { error: 'see the profile section' }, 'browser');
    expect(browser.message).toMatch(/see the profile section: the browser service token is/);
  });

  it('collects string and all-string-list fields, never error, detail, numbers or mixed lists', () => {
    const e = mapped(400, {
      a: ['x', 'y'],
      b: ['z'],
      country: 'Not available.',
      detail: 'ignored as a field',
      count: 5,
      mixed: ['m', 1],
    }) as BadRequestError;
    expect(e.fieldErrors).toEqual({ a: ['x', 'y'], b: ['z'], country: ['Not available.'] });
    expect(e.message).toBe('GET /p → 400: ignored as a field');
    const fieldsOnly = mapped(400, { a: ['x', 'y'], b: ['z'] });
    expect(fieldsOnly.message).toBe('GET /p → 400: a: x y; b: z');
  });

  it('has no field errors for a body that is a string, a list, null, or has no string fields', () => {
    for (const body of ['bad thing', ['bad', 'worse'], { count: 5 }, null]) {
      expect((mapped(400, body) as BadRequestError).fieldErrors).toBeUndefined();
    }
    expect(mapped(400, ['bad', 'worse']).message).toBe('GET /p → 400: HTTP 400');
    expect(mapped(400, { count: 5 }).message).toBe('GET /p → 400: HTTP 400');
    expect(mapped(500, null).message).toBe('GET /p → 500: HTTP 500');
  });

  it('takes the message key, a trimmed text body cut at 300, or the bare status', () => {
    expect(mapped(500, { message: 'exploded' }).message).toBe('GET /p → 500: exploded');
    expect(mapped(500, '  upstream exploded \n').message).toBe('GET /p → 500: upstream exploded');
    expect(mapped(500, '   ').message).toBe('GET /p → 500: HTTP 500');
    expect(mapped(500, ` ${'x'.repeat(400)}`).message).toBe(`GET /p → 500: ${'x'.repeat(300)}`);
  });

  it('maps 409 to a ConflictError', () => {
    expect(mapped(409, { error: 'busy' })).toBeInstanceOf(ConflictError);
  });

  it("reads a 429's numbers whether JSON numbers or numeric strings, and nothing else", () => {
    const e = mapped(429, { error: 'x', current_usage: '50', limit: ' 60 ' }) as RateLimitError;
    expect([e.currentUsage, e.limit]).toEqual([50, 60]);
    for (const value of [' ', 'abc', 'Infinity', Number.POSITIVE_INFINITY, null, [3], true]) {
      const odd = mapped(429, { error: 'x', current_usage: value, limit: value }) as RateLimitError;
      expect([odd.currentUsage, odd.limit]).toEqual([undefined, undefined]);
    }
  });

  it('keeps limit_type and reason only when they are strings', () => {
    expect(
      (mapped(429, { error: 'x', limit_type: 5 }) as RateLimitError).limitType,
    ).toBeUndefined();
    expect(
      (mapped(503, { error: 'x', reason: 7 }) as ServiceUnavailableError).reason,
    ).toBeUndefined();
  });
});

describe('parseCredits wordings', () => {
  it.each([
    ['12 credits required, 30 credits available', 12, 30],
    ['1 credit required, 0 credit available', 1, 0],
    ['2 credit is required and 5 credit is available', 2, 5],
    ['7  credits  are  required;  9  credits  are  available', 7, 9],
    ['3 credits are required, 4 credits are available', 3, 4],
    ['1 credit is  required, 2 credits is  available', 1, 2],
    ['You need at least 14 credits but have only 3', 14, 3],
    ['Required: 12, available: 30', 12, 30],
    ['Not enough credits (required 9, balance 15)', 9, 15],
  ])('reads %j', (message, required, available) => {
    expect(parseCredits(message)).toEqual({ required, available });
  });

  it('leaves out a number it cannot find instead of setting it undefined', () => {
    expect(Object.keys(parseCredits('Insufficient credits'))).toEqual([]);
    expect(Object.keys(parseCredits('Insufficient credits: 6 required'))).toEqual(['required']);
  });
});
