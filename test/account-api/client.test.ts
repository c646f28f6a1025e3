import { afterEach, describe, expect, it, vi } from 'vitest';
import { AccountApi } from '../../src/account-api/index.js';
import { isAbortError, isConfigurationError, isTimeoutError } from '../../src/http/errors.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { pendingRow, row, useAccountApi, validSubmit } from './fixtures.js';

describe('AccountApi configuration', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('falls back to REMOTE_BROWSER_ACCOUNT_URL and REMOTE_BROWSER_API_KEY', async () => {
    const server = await startTestServer();
    server.respond(json(200, { balance: 3 }));
    vi.stubEnv('REMOTE_BROWSER_ACCOUNT_URL', `${server.origin}/api/v2/base/`);
    vi.stubEnv('REMOTE_BROWSER_API_KEY', 'ak_from_env_456');
    const api = new AccountApi();
    await api.balance();
    expect(server.requests[0]?.url).toBe('/api/v2/base/llm/balance/');
    expect(server.requests[0]?.headers.authorization).toBe('x-api-key ak_from_env_456');
    await api.close();
    await server.close();
  });

  it('names the env var and the Profile section when the key is missing', () => {
    vi.stubEnv('REMOTE_BROWSER_API_KEY', '');
    let error: unknown;
    try {
      new AccountApi({ baseUrl: 'http://127.0.0.1:9' });
    } catch (e) {
      error = e;
    }
    expect(isConfigurationError(error)).toBe(true);
    expect(String(error)).toMatch(/REMOTE_BROWSER_API_KEY.*Profile/);
  });

  it('estimates the documented minimum cost and the per-location maximum', () => {
    const api = new AccountApi({ apiKey: 'ak_test_key_123', baseUrl: 'http://127.0.0.1:9' });
    expect(
      api.estimateCost({
        questions: ['a', 'b'],
        platforms: ['assistant_a', 'assistant_b'],
        locations: [{ country: 'us' }, { country: 'gb' }],
      }),
    ).toEqual({ credits: 4, maxCredits: 8, rows: 8, submits: 1 });
  });
});

/**
 * The account client's pacing against a loopback server: a wait for a rate-limit slot is not
 * request time, it is bounded by the caller's signal and `maxWaitMs`, and a 429 on any account
 * call is sent again after its Retry-After (the service did nothing with it).
 */
const submitted = { request_id: 'b1', results: [pendingRow()] };
const hook = {
  id: 'wh1',
  url: 'https://receiver.example/hook',
  events: ['credits.low'],
  description: '',
  enabled: true,
  last_delivery: null,
};

describe('AccountApi pacing', () => {
  let server: TestServer;
  let api: AccountApi;
  useAccountApi((s, a) => {
    server = s;
    api = a;
  });

  it('does not count the wait for a submit slot as request time: 25 at once all go out', async () => {
    server.respond(json(200, submitted));
    // 20 slots per window: 5 submits wait a whole window, longer than the per-call timeout.
    // The timeout leaves a loaded machine (or a mutation run) seconds for each request itself.
    const paced = new AccountApi({
      apiKey: 'ak_test_key_123',
      baseUrl: server.origin,
      timeout: 4000,
      rateLimits: { windowMs: 6000 },
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 25 }, () => paced.queries.submit(validSubmit)),
    );
    await paced.close();
    const failures = outcomes.filter((o) => o.status === 'rejected');
    expect(failures.map((f) => String((f as PromiseRejectedResult).reason))).toEqual([]);
    expect(server.requests).toHaveLength(25);
  });

  it('gives up after maxWaitMs with a message saying it waited for a rate-limit slot, sending nothing', async () => {
    server.respond(json(200, submitted));
    const paced = new AccountApi({
      apiKey: 'ak_test_key_123',
      baseUrl: server.origin,
      rateLimits: { submit: 1, maxWaitMs: 50 },
    });
    await paced.queries.submit(validSubmit);
    const error = await paced.queries.submit(validSubmit).catch((e: unknown) => e);
    await paced.close();
    expect(isTimeoutError(error)).toBe(true);
    expect(String(error)).toMatch(
      /queries\.submit: waited for a rate-limit slot .*nothing was sent/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("ends the wait for a slot when the caller's signal aborts, sending nothing", async () => {
    server.respond(json(200, submitted));
    const paced = new AccountApi({
      apiKey: 'ak_test_key_123',
      baseUrl: server.origin,
      rateLimits: { submit: 1 },
    });
    await paced.queries.submit(validSubmit);
    const controller = new AbortController();
    const waiting = paced.queries.submit(validSubmit, { signal: controller.signal });
    controller.abort();
    const error = await waiting.catch((e: unknown) => e);
    await paced.close();
    expect(isAbortError(error)).toBe(true);
    expect(String(error)).toMatch(/while it waited for a rate-limit slot; nothing was sent/);
    expect(server.requests).toHaveLength(1);
  });

  const limited = json(429, { detail: 'Request was throttled.' }, { 'retry-after': '0.05' });
  it.each([
    ['queries.submit', () => api.queries.submit(validSubmit), json(200, submitted)],
    ['balance', () => api.balance(), json(200, { balance: 3 })],
    [
      'queries.results',
      () => api.queries.results('b1'),
      json(200, { request_id: 'b1', results: [row()] }),
    ],
    [
      'webhooks.create',
      () => api.webhooks.create({ url: 'https://receiver.example/hook', events: ['credits.low'] }),
      json(200, { ...hook, secret: 'whsec_abcdefghijklmnop' }),
    ],
    [
      'webhooks.rotateSecret',
      () => api.webhooks.rotateSecret('wh1'),
      json(200, { secret: 'whsec_qrstuvwxyz012345', previous_secret_valid_until: null }),
    ],
    ['webhooks.list', () => api.webhooks.list(), json(200, [hook])],
    ['notifications.list', () => api.notifications.list(), json(200, [])],
  ])('sends %s again after a 429, once its Retry-After has passed', async (_name, call, ok) => {
    server.respond(limited, ok);
    await call();
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.method).toBe(server.requests[0]?.method);
  });
});
