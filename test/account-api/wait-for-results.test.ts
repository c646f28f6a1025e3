import { afterEach, beforeEach, expect, it } from 'vitest';
import { AccountApi, waitForResults } from '../../src/account-api/index.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { pendingRow, row } from './fixtures.js';

let server: TestServer;
let api: AccountApi;
beforeEach(async () => {
  server = await startTestServer();
  api = new AccountApi({ apiKey: 'ak_test_key_123', baseUrl: server.origin });
});
afterEach(async () => {
  await api.close();
  await server.close();
});

it('waitForResults polls the batch until no row is pending', async () => {
  server.respond(
    json(200, { request_id: 'r1', results: [pendingRow()] }),
    json(200, { request_id: 'r1', results: [row()] }),
  );
  const batch = await waitForResults(api, 'r1', { intervalMs: 10 });
  expect(batch.results.every((r) => r.status !== 'pending')).toBe(true);
  expect(server.requests.map((r) => r.url)).toEqual([
    '/api/v2/base/llm/results/r1/',
    '/api/v2/base/llm/results/r1/',
  ]);
});
