import { afterEach, describe, expect, it, vi } from 'vitest';
import { AccountApi } from '../../src/account-api/index.js';
import { isConfigurationError } from '../../src/http/errors.js';
import { json, startTestServer } from '../helpers/http-server.js';

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
