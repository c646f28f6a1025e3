import { expect, it } from 'vitest';
import { type AccountApi, waitForResults } from '../../src/account-api/index.js';
import { json, type TestServer } from '../helpers/http-server.js';
import { pendingRow, row, useAccountApi } from './fixtures.js';

let server: TestServer;
let api: AccountApi;
useAccountApi((s, a) => {
  server = s;
  api = a;
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
