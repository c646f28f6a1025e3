import { describe, expect, it } from 'vitest';
import { errorFromResponse, parseCredits } from '../../src/http/error-mapping.js';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
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
