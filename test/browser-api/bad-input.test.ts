/**
 * Bad input to BrowserApi gets a RequestValidationError naming the field and the rule, before
 * any request: the loopback server must see nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { isRequestValidationError, type RequestValidationError } from '../../src/http/errors.js';
import { type ApiFixture, startApi } from './api-server.js';

let fx: ApiFixture;
beforeAll(async () => {
  fx = await startApi();
});
afterAll(() => fx.close());

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

describe('BrowserApi: bad input is refused before any request', () => {
  it.each<[string, () => unknown, string, RegExp]>([
    ['a list limit above 500', () => fx.api.sessions.list({ limit: 501 }), 'limit', /<= 500/],
    [
      'navigate to something that is not a URL',
      () => fx.api.tools.navigate({ session_id: 's-1', url: 'not a url' }),
      'url',
      /absolute URL/,
    ],
    [
      'a 101-character profile name',
      () => fx.api.profiles.create({ name: 'p'.repeat(101) }),
      'name',
      /at most 100 characters/,
    ],
    [
      'a 101-character name in a profile update',
      () => fx.api.profiles.update('pr-1', { name: 'p'.repeat(101) }),
      'name',
      /at most 100 characters/,
    ],
    ['an empty session id', () => fx.api.sessions.retrieve(''), 'id', /must not be empty/],
    [
      'a session create body of null',
      () => fx.api.sessions.create(null as never),
      'body',
      /object/,
    ],
    [
      'a list params of a string',
      () => fx.api.sessions.list('running' as never),
      'params',
      /object/,
    ],
    [
      'a negative per-call timeout',
      () => fx.api.sessions.list({}, { timeout: -1 }),
      'options.timeout',
      /number of ms >= 0/,
    ],
    [
      'a NaN per-call timeout',
      () => fx.api.proxy.options({ timeout: Number.NaN }),
      'options.timeout',
      /got NaN/,
    ],
    [
      'a string per-call timeout',
      () => fx.api.profiles.list({ timeout: '5s' as never }),
      'options.timeout',
      /got "5s"/,
    ],
    [
      'a signal that is a string',
      () => fx.api.sessions.retrieve('s-1', { signal: 'stop' as never }),
      'options.signal',
      /AbortSignal/,
    ],
  ])('%s', async (_name, call, field, rule) => {
    const error = await rejection(call);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(rule);
    expect(fx.server.requests).toHaveLength(0);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a token that is a number', { token: 42 }, 'token', /must be a string \(got number\)/],
    ['a negative timeout', { timeout: -5 }, 'timeout', /number of ms >= 0/],
    ['a string timeout', { timeout: '60s' }, 'timeout', /got "60s"/],
    ['a NaN timeout', { timeout: Number.NaN }, 'timeout', /got NaN/],
    ['a negative retry count', { retry: { retries: -1 } }, 'retry.retries', /integer >= 0/],
    ['a proxy password that is a number', { proxyPassword: 7 }, 'proxyPassword', /string/],
  ])('new BrowserApi with %s names the option', async (_name, options, field, rule) => {
    const error = await rejection(
      () => new BrowserApi({ baseUrl: fx.server.origin, token: 'tok-123456', ...options }),
    );
    expect(error.field).toBe(field);
    expect(error.message).toMatch(/^new BrowserApi: invalid options: /);
    expect(error.message).toMatch(rule);
  });

  it('never prints the credential it refused', async () => {
    const error = await rejection(
      () => new BrowserApi({ baseUrl: fx.server.origin, token: { secret: 'hunter22' } as never }),
    );
    expect(error.message).not.toContain('hunter22');
  });
});
