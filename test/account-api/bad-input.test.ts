/**
 * Bad input to AccountApi gets a RequestValidationError naming the field and the rule, before
 * any request: the loopback server must see nothing.
 */
import { describe, expect, it } from 'vitest';
import { AccountApi } from '../../src/account-api/index.js';
import { isRequestValidationError, type RequestValidationError } from '../../src/http/errors.js';
import type { TestServer } from '../helpers/http-server.js';
import { useAccountApi, validSubmit } from './fixtures.js';

async function rejection(call: () => unknown): Promise<RequestValidationError> {
  let error: unknown;
  try {
    await call();
  } catch (caught) {
    error = caught;
  }
  expect(isRequestValidationError(error), String(error)).toBe(true);
  return error as RequestValidationError;
}

describe('AccountApi: bad input is refused before any request', () => {
  let server: TestServer;
  let api: AccountApi;
  useAccountApi((s, a) => {
    server = s;
    api = a;
  });

  it.each<[string, () => unknown, string, RegExp]>([
    ['submit(null)', () => api.queries.submit(null as never), 'params', /must be an object/],
    ['runMany(undefined)', () => api.queries.runMany(undefined as never), 'params', /object/],
    ["results('')", () => api.queries.results(''), 'requestId', /must not be empty/],
    ["wait('')", () => api.queries.wait(''), 'requestId', /must not be empty/],
    [
      'wait with a negative interval',
      () => api.queries.wait('b1', { intervalMs: -1 }),
      'options.intervalMs',
      />= 0/,
    ],
    ["webhooks.retrieve('')", () => api.webhooks.retrieve(''), 'id', /must not be empty/],
    ["webhooks.delete('')", () => api.webhooks.delete(''), 'id', /must not be empty/],
    ["webhooks.rotateSecret('  ')", () => api.webhooks.rotateSecret('  '), 'id', /empty/],
    [
      'webhooks.update with a 501-character url (before its GET)',
      () => api.webhooks.update('wh1', { url: `https://h.example/${'x'.repeat(483)}` }),
      'url',
      /at most 500 characters/,
    ],
    [
      'webhooks.update with a patch of null',
      () => api.webhooks.update('wh1', null as never),
      'patch',
      /object/,
    ],
    [
      'notifications.markRead with a non-UUID',
      () => api.notifications.markRead('42'),
      'notificationId',
      /UUID/,
    ],
    [
      'a string per-call timeout',
      () => api.balance({ timeout: 'soon' as never }),
      'options.timeout',
      /got "soon"/,
    ],
    [
      'a negative per-call timeout',
      () => api.queries.submit(validSubmit, { timeout: -1 }),
      'options.timeout',
      />= 0/,
    ],
    [
      'a signal that is a string',
      () => api.webhooks.list({ signal: 'stop' as never }),
      'options.signal',
      /AbortSignal/,
    ],
    ['estimateCost(null)', () => api.estimateCost(null as never), 'params', /object/],
  ])('%s', async (_name, call, field, rule) => {
    const error = await rejection(call);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(rule);
    expect(server.requests).toHaveLength(0);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['rateLimits.submit: 0', { rateLimits: { submit: 0 } }, 'rateLimits.submit', /integer >= 1/],
    ["rateLimits.windowMs: 'x'", { rateLimits: { windowMs: 'x' } }, 'rateLimits.windowMs', /"x"/],
    ['rateLimits.maxWaitMs: -1', { rateLimits: { maxWaitMs: -1 } }, 'rateLimits.maxWaitMs', />= 0/],
    ["rateLimits: 'off'", { rateLimits: 'off' }, 'rateLimits', /object .* or false/],
    ['apiKey: 42', { apiKey: 42 }, 'apiKey', /must be a string \(got number\)/],
    ['timeout: -1', { timeout: -1 }, 'timeout', />= 0/],
    ['timeout: NaN', { timeout: Number.NaN }, 'timeout', /NaN/],
    ["timeout: '60s'", { timeout: '60s' }, 'timeout', /"60s"/],
    [
      "allowUnavailablePlatforms: 'yes'",
      { allowUnavailablePlatforms: 'yes' },
      'allowUnavailablePlatforms',
      /true or false/,
    ],
  ])('new AccountApi with %s names the option', async (_name, options, field, rule) => {
    const error = await rejection(
      () => new AccountApi({ baseUrl: server.origin, apiKey: 'ak_test_key_123', ...options }),
    );
    expect(error.field).toBe(field);
    expect(error.message).toMatch(/^new AccountApi: invalid options: /);
    expect(error.message).toMatch(rule);
  });
});
