import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  AccountApi,
  PaymentRequiredError,
  RequestValidationError,
  waitForResults,
} from '../../src/account-api/index.js';
import { isConnectionError, isUpstreamError } from '../../src/http/errors.js';
import { json, type TestServer } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { pendingRow, row, useAccountApi, validSubmit } from './fixtures.js';

describe('AccountApi queries', () => {
  let server: TestServer;
  let api: AccountApi;
  useAccountApi((s, a) => {
    server = s;
    api = a;
  });

  it('reads the balance with the x-api-key header under /api/v2/base', async () => {
    server.respond(json(200, { balance: 7 }));
    expect(await api.balance()).toEqual({ balance: 7 });
    expect(server.requests[0]?.url).toBe('/api/v2/base/llm/balance/');
    expect(server.requests[0]?.headers.authorization).toBe('x-api-key ak_test_key_123');
  });

  it.each([
    ['21 questions', { questions: Array.from({ length: 21 }, (_, i) => `q${i}`) }, 'questions'],
    ['a 2048-character question', { questions: ['x'.repeat(2048)] }, 'questions.0'],
    ['no locations', { locations: [] }, 'locations'],
    [
      '11 locations',
      { locations: Array.from({ length: 11 }, () => ({ country: 'us' })) },
      'locations',
    ],
    ['an uppercase country', { locations: [{ country: 'US' }] }, 'locations.0.country'],
    ['a duplicated platform', { platforms: ['assistant_a', 'assistant_a'] }, 'platforms'],
    ['an unknown platform', { platforms: ['assistant_z'] }, 'platforms.0'],
    ['assistant_c', { platforms: ['assistant_c'] }, 'platforms.0'],
  ])('rejects %s before sending anything', async (_name, patch, field) => {
    const error = await api.queries
      .submit({ ...validSubmit, ...(patch as object) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).field).toBe(field);
    expect(server.requests).toHaveLength(0);
  });

  it('sends assistant_c when allowUnavailablePlatforms is set', async () => {
    const open = new AccountApi({
      apiKey: 'ak_test_key_123',
      baseUrl: server.origin,
      allowUnavailablePlatforms: true,
    });
    server.respond(
      json(200, { request_id: 'b1', results: [pendingRow({ platform: 'assistant_c' })] }),
    );
    await open.queries.submit({ ...validSubmit, platforms: ['assistant_c'] });
    expect(JSON.parse(server.requests[0]!.body).platforms).toEqual(['assistant_c']);
    await open.close();
  });

  it('throws PaymentRequiredError with required and available credits on 402', async () => {
    server.respond(json(402, { error: 'Insufficient credits: 6 required, 1 available.' }));
    const error = (await api.queries.submit(validSubmit).catch((e) => e)) as PaymentRequiredError;
    expect(error).toBeInstanceOf(PaymentRequiredError);
    expect([error.required, error.available]).toEqual([6, 1]);
  });

  it('does not retry submit after a 502', async () => {
    server.respond(json(502, { error: 'upstream' }));
    const error = await api.queries.submit(validSubmit).catch((e) => e);
    expect(isUpstreamError(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('exposes 400 field errors of the service', async () => {
    server.respond(json(400, { country: ['Location 0: the assistants are not offered in "cn".'] }));
    const error: any = await api.queries.submit(validSubmit).catch((e) => e);
    expect(error.fieldErrors.country[0]).toContain('"cn"');
  });

  it('waits while any row is pending, reporting each poll', async () => {
    server.respond(
      json(200, { request_id: 'b1', results: [pendingRow(), row({ id: 'r2' })] }),
      json(200, { request_id: 'b1', results: [pendingRow(), row({ id: 'r2' })] }),
      json(200, {
        request_id: 'b1',
        results: [row({ status: 'failed', raw_response: null }), row({ id: 'r2' })],
      }),
    );
    const seen: number[] = [];
    const batch = await api.queries.wait('b1', {
      intervalMs: 5,
      onProgress: (b) => seen.push(b.results.filter((r) => r.status === 'pending').length),
    });
    expect(seen).toEqual([1, 1, 0]);
    expect(batch.results.map((r) => r.status)).toEqual(['failed', 'success']);
    expect(server.requests.every((r) => r.url === '/api/v2/base/llm/results/b1/')).toBe(true);
  });

  it('keeps 10 concurrent waits within the shared read limit', async () => {
    // The limiters read `Date.now` when built: build the client under a hand-moved clock so the
    // windows pass when the test says, not when a loaded machine gets round to it.
    let clock = 0;
    const realNow = Date.now;
    Date.now = () => clock;
    let limited: AccountApi;
    try {
      limited = new AccountApi({
        apiKey: 'ak_test_key_123',
        baseUrl: server.origin,
        rateLimits: { read: 10, windowMs: 400 },
      });
    } finally {
      Date.now = realNow;
    }
    const polls = new Map<string, number>();
    server.respond((req, res) => {
      const id = req.url.split('/')[6] as string;
      const n = (polls.get(id) ?? 0) + 1;
      polls.set(id, n);
      json(200, { request_id: id, results: [n < 3 ? pendingRow() : row()] })(req, res);
    });
    const ids = Array.from({ length: 10 }, (_, i) => `batch${i}`);
    const waits = Promise.all(ids.map((id) => limited.queries.wait(id, { intervalMs: 1 })));
    // Each window admits exactly the 10 reads of one round of polls, however fast they come.
    for (const round of [1, 2, 3]) {
      await eventually(() => server.requests.length >= 10 * round, 10_000, `round ${round}`);
      await sleep(50);
      expect(server.requests).toHaveLength(10 * round);
      expect(limited.limiters.read?.available()).toBe(0);
      clock += 400;
    }
    const batches = await waits;
    expect(batches.map((b) => b.results[0]?.status)).toEqual(ids.map(() => 'success'));
    expect([...polls.values()]).toEqual(ids.map(() => 3));
    await limited.close();
  });

  it('waits poll at their fair share of the shared read limit, and give it back when they end', async () => {
    const limited = new AccountApi({
      apiKey: 'ak_test_key_123',
      baseUrl: server.origin,
      rateLimits: { read: 90, windowMs: 1000 },
    });
    let settled = false;
    server.respond((req, res) =>
      json(200, { request_id: 'b', results: [settled ? row() : pendingRow()] })(req, res),
    );
    // A probe poller on the same limiter reads how many pollers share it: n × 1000 / 81 ms.
    const probe = limited.limiters.read!.joinPolling();
    const perPoller = 1000 / 81;
    const controller = new AbortController();
    const waits = [
      limited.queries.wait('b1', { intervalMs: 1 }),
      limited.queries.wait('b2', { intervalMs: 1 }),
      limited.queries.wait('b3', { intervalMs: 1, signal: controller.signal }).catch((e) => e),
    ];
    await eventually(() => server.requests.length >= 3, 10_000, 'first polls');
    expect(probe.intervalMs(0)).toBeCloseTo(4 * perPoller, 6);
    controller.abort();
    expect(await waits[2]).toBeInstanceOf(Error);
    expect(probe.intervalMs(0)).toBeCloseTo(3 * perPoller, 6);
    settled = true;
    await Promise.all(waits.slice(0, 2));
    expect(probe.intervalMs(0)).toBeCloseTo(perPoller, 6);
    probe.leave();
    await limited.close();
  });

  it('runs submit then wait', async () => {
    server.respond(
      json(200, {
        request_id: 'b9',
        results: [{ id: 'r1', platform: 'assistant_a', status: 'pending', raw_response: null }],
      }),
      json(200, { request_id: 'b9', results: [row()] }),
    );
    const batch = await api.queries.run(validSubmit, { intervalMs: 1 });
    expect(batch.results[0]?.raw_response?.text).toBe('answer');
  });

  it('stops waiting when the signal aborts', async () => {
    server.respond(json(200, { request_id: 'b1', results: [pendingRow()] }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const error = await api.queries
      .wait('b1', { intervalMs: 5, signal: controller.signal })
      .catch((e) => e);
    expect(error.name).toBe('AbortError');
    expect(isConnectionError(error)).toBe(false);
  });
});

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
