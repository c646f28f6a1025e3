import { afterEach, beforeEach } from 'vitest';
import { AccountApi } from '../../src/account-api/index.js';
import { startTestServer, type TestServer } from '../helpers/http-server.js';
/** Canned account-service bodies for client tests against the loopback server. */
export const row = (over: Record<string, unknown> = {}) => ({
  id: 'r1',
  platform: 'assistant_a',
  question: 'q?',
  country: 'us',
  region: 'California',
  city: 'San Francisco',
  status: 'success',
  raw_response: { text: 'answer', used_html_fallback: false, sources: [] },
  created: '2030-01-01T00:00:00Z',
  updated: '2030-01-01T00:00:05Z',
  ...over,
});

export const pendingRow = (over: Record<string, unknown> = {}) =>
  row({ status: 'pending', raw_response: null, ...over });

export const validSubmit = {
  questions: ['What is the best coffee?'],
  platforms: ['assistant_a' as const],
  locations: [{ country: 'us' }],
};

/**
 * A fresh loopback server and AccountApi for every test of the calling suite, handed to
 * `bind` before each test (so test bodies keep plain `server` and `api` variables).
 */
export function useAccountApi(bind: (server: TestServer, api: AccountApi) => void): void {
  let server: TestServer;
  let api: AccountApi;
  beforeEach(async () => {
    server = await startTestServer();
    api = new AccountApi({ apiKey: 'ak_test_key_123', baseUrl: server.origin });
    bind(server, api);
  });
  afterEach(async () => {
    await api.close();
    await server.close();
  });
}
