import { describe, expect, it } from 'vitest';
import {
  accountNotFound,
  accountUnauthorized,
  accountWording,
  addFieldError,
  type FieldErrors,
  flatWording,
  HttpError,
  insufficientCredits,
  limitReached,
  notPurchased,
  rateLimited,
  unavailable,
} from '../../../src/emulator/server/http-error.js';

describe('flatWording (the browser service and the default)', () => {
  it('words an error as { error, ...extra }', () => {
    const error = limitReached('sessions', 3, 3, 5, 'Concurrent session limit reached');
    expect(flatWording(error)).toEqual({
      error: 'Concurrent session limit reached',
      limit_type: 'sessions',
      current_usage: 3,
      limit: 3,
      retry_after: 5,
    });
    expect(error.headers).toEqual({ 'retry-after': '5' });
  });

  it('keeps a 503 reason machine-readable', () => {
    const error = unavailable('locations_not_configured', 60, 'Locations are off');
    expect(flatWording(error)).toEqual({
      error: 'Locations are off',
      reason: 'locations_not_configured',
      retry_after: 60,
    });
  });
});

describe('accountWording (the account service)', () => {
  it('words a 400 per field, and one without a field under non_field_errors', () => {
    const errors: FieldErrors = {};
    addFieldError(errors, 'questions', 'This field is required.');
    addFieldError(errors, 'questions', 'This field is required.');
    addFieldError(errors, 'country', 'Location 0: "xx" is not an ISO 3166-1 country code.');
    expect(accountWording(new HttpError(400, 'Invalid request', { fields: errors }))).toEqual({
      questions: ['This field is required.'],
      country: ['Location 0: "xx" is not an ISO 3166-1 country code.'],
    });
    expect(accountWording(new HttpError(400, 'Malformed JSON in the request body'))).toEqual({
      non_field_errors: ['Malformed JSON in the request body'],
    });
  });

  it('keys a nested field path by its innermost field, the message naming the whole path', () => {
    const fields = {
      'locations.0.country': ['must be a lowercase 2-letter ISO country code'],
      'locations.2.country': ['must be a country the assistants are offered in (got "cn")'],
      'questions.3': ['must be at most 2047 characters (got 2048)'],
      locations: ['must have at most 10 items (got 11)'],
    };
    expect(accountWording(new HttpError(400, 'Invalid request', { fields }))).toEqual({
      country: [
        'locations.0.country must be a lowercase 2-letter ISO country code',
        'locations.2.country must be a country the assistants are offered in (got "cn")',
      ],
      questions: ['questions.3 must be at most 2047 characters (got 2048)'],
      locations: ['must have at most 10 items (got 11)'],
    });
  });

  it('words 401 and 403 as { detail }, naming the scheme without echoing a key', () => {
    const unauthorized = accountUnauthorized();
    expect(accountWording(unauthorized)).toEqual({ detail: expect.stringContaining('x-api-key') });
    expect(unauthorized.headers).toEqual({ 'www-authenticate': 'x-api-key' });
    expect(accountWording(notPurchased())).toEqual({
      detail: expect.stringContaining('credit-pack purchase'),
    });
  });

  it('words 402, 404 and 429 as { error }, with retry_after on a 429', () => {
    expect(accountWording(insufficientCredits(12, 3))).toEqual({
      error: 'Insufficient credits: 12 required, 3 available.',
    });
    expect(accountWording(accountNotFound())).toEqual({ error: 'Not found' });
    const limited = rateLimited('submit', 10, 7);
    expect(accountWording(limited)).toEqual({
      error: 'Rate limit exceeded: at most 10 submit requests per minute. Retry after 7 s.',
      retry_after: 7,
    });
    expect(limited.headers).toEqual({ 'retry-after': '7' });
  });
});
