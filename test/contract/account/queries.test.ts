/**
 * The query service contract (account-api.md: balance, submit, results, limits), through
 * `AccountApi`, with a bare transport for what the client refuses to send. Emulator by
 * default; REMOTE_BROWSER_CONTRACT=real runs the same against the real service, spending as
 * few credits as it can (one row) and skipping what needs the emulator.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountApi, groupByLocation } from '../../../src/account-api/index.js';
import { FAIL_MARKER } from '../../../src/emulator/account-service/queries.js';
import {
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
} from '../../../src/http/errors.js';
import { emulatorOnly, REAL } from '../target.js';
import { type AccountTarget, startAccountTarget } from './target.js';

let target: AccountTarget;
let api: AccountApi;

beforeAll(async () => {
  target = await startAccountTarget();
  api = target.api();
});
afterAll(() => target?.close());

const one = {
  questions: ['What is the best coffee in town?'],
  platforms: ['assistant_a' as const],
  locations: [{ country: 'us' }],
};

async function failure<T>(promise: Promise<unknown>, cls: new (...a: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a ${cls.name}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(cls);
  return error as T;
}

describe('account contract: authentication', () => {
  it('answers 401 without the header and for a Bearer header, never echoing the key', async () => {
    for (const authorization of ['', `Bearer ${target.apiKey}`]) {
      const response = await request(`${target.baseUrl}/api/v2/base/llm/balance/`, {
        headers: authorization ? { authorization } : {},
      });
      const text = await response.body.text();
      expect(response.statusCode).toBe(401);
      expect(text).not.toContain(target.apiKey);
    }
  });

  it('maps 401 to AuthenticationError pointing at the Profile section', async () => {
    const error = await failure(
      target
        .raw('ak_wrong_key_000000')
        .request({ method: 'GET', path: '/llm/balance/', what: 'x' }),
      AuthenticationError,
    );
    expect(error.message).toContain('Profile');
  });

  it.skipIf(emulatorOnly('an account without a purchase needs the emulator admin API'))(
    'answers 403 {detail} on balance, submit and results until a credit pack is bought',
    async () => {
      const poor = await target.newAccount({ purchased: false, balance: 0 });
      const client = target.api({ apiKey: poor.apiKey });
      const denied = await failure(client.balance(), PermissionDeniedError);
      expect(typeof (denied.body as { detail: unknown }).detail).toBe('string');
      await failure(client.queries.submit(one), PermissionDeniedError);
      await failure(client.queries.results('anything'), PermissionDeniedError);
      await target.admin('/purchases', { accountId: poor.accountId, credits: 3 });
      expect((await client.balance()).balance).toBe(5); // 3 bought + 2 free this month
    },
  );
});

describe('account contract: balance and credits', () => {
  it('reads an integer balance', async () => {
    expect(Number.isInteger((await api.balance()).balance)).toBe(true);
  });

  it.skipIf(emulatorOnly('moving to the next month needs the emulator clock'))(
    'grants 2 free credits on the first balance read of each calendar month',
    async () => {
      const fresh = await target.newAccount({ balance: 0 });
      const client = target.api({ apiKey: fresh.apiKey });
      expect((await client.balance()).balance).toBe(2);
      expect((await client.balance()).balance).toBe(2);
      const now = new Date(await target.now());
      const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 5);
      await target.emulator!.admin.advanceClock(nextMonth - now.getTime());
      expect((await client.balance()).balance).toBe(4);
    },
  );

  it.skipIf(emulatorOnly('an account with too few credits needs the emulator admin API'))(
    'answers 402 with required and available credits, charging and writing nothing',
    async () => {
      const broke = await target.newAccount({ balance: 1 });
      const client = target.api({ apiKey: broke.apiKey });
      const error = await failure(
        client.queries.submit({ ...one, platforms: ['assistant_a', 'assistant_b'] }),
        PaymentRequiredError,
      );
      expect([error.required, error.available]).toEqual([2, 1]);
      expect(typeof (error.body as { error: unknown }).error).toBe('string');
      expect((await client.balance()).balance).toBe(3); // 1 + this month's 2, nothing charged
    },
  );
});

describe('account contract: submit validation (400 {field: [messages]})', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['21 questions', { questions: Array.from({ length: 21 }, (_, i) => `q${i}?`) }, 'questions'],
    ['a 2048-character question', { questions: ['x'.repeat(2048)] }, 'questions'],
    ['an unknown platform', { platforms: ['assistant_z'] }, 'platforms'],
    ['a duplicated platform', { platforms: ['assistant_a', 'assistant_a'] }, 'platforms'],
  ];
  it.each(cases)('rejects %s', async (_name, patch, field) => {
    const error = await failure(
      target.raw().request({
        method: 'POST',
        path: '/llm/submit/',
        body: { ...one, ...patch },
        what: 'submit',
      }),
      BadRequestError,
    );
    expect(error.fieldErrors?.[field]?.length).toBeGreaterThan(0);
  });

  it('rejects 0 and 11 locations', async () => {
    for (const locations of [[], Array.from({ length: 11 }, () => ({ country: 'us' }))]) {
      const error = await failure(
        target.raw().request({
          method: 'POST',
          path: '/llm/submit/',
          body: { ...one, locations },
          what: 'submit',
        }),
        BadRequestError,
      );
      expect(error.fieldErrors).toBeDefined();
    }
  });

  it.skipIf(emulatorOnly('which countries are unavailable is decided server-side and can change'))(
    'rejects an unavailable country under the key `country`',
    async () => {
      const error = await failure(
        target.raw().request({
          method: 'POST',
          path: '/llm/submit/',
          body: { ...one, locations: [{ country: 'cn' }] },
          what: 'submit',
        }),
        BadRequestError,
      );
      expect(error.fieldErrors?.country?.length).toBeGreaterThan(0);
    },
  );

  it('rejects malformed JSON with 400', async () => {
    const response = await request(`${target.baseUrl}/api/v2/base/llm/submit/`, {
      method: 'POST',
      headers: { authorization: `x-api-key ${target.apiKey}`, 'content-type': 'application/json' },
      body: '{"questions": [',
    });
    await response.body.text();
    expect(response.statusCode).toBe(400);
  });
});

describe('account contract: batches and results', () => {
  it('runs one row per question × platform × location, with the exact location on each row', async () => {
    const locations = REAL
      ? [{ country: 'us' }]
      : [
          { country: 'us', region: 'CA', city: 'san francisco' },
          { country: 'gb', region: 'England', city: 'LONDON' },
        ];
    const params = {
      ...one,
      platforms: REAL ? one.platforms : (['assistant_a', 'assistant_b'] as const),
    };
    const before = (await api.balance()).balance;
    const submitted = await api.queries.submit({
      ...params,
      platforms: [...params.platforms],
      locations,
    });
    expect(submitted.results.every((r) => r.status === 'pending' && r.raw_response === null)).toBe(
      true,
    );
    const batch = await api.queries.wait(submitted.request_id, { intervalMs: REAL ? 5000 : 200 });
    expect(batch.results).toHaveLength(params.platforms.length * locations.length);
    for (const row of batch.results) {
      expect(['success', 'failed']).toContain(row.status);
      if (row.status === 'success') expect(typeof row.raw_response?.text).toBe('string');
      else expect(row.raw_response).toBeNull();
    }
    const spent = before - (await api.balance()).balance;
    expect(spent).toBeGreaterThanOrEqual(0);
    if (!REAL) {
      expect(spent).toBe(2); // questions × platforms; locations are not charged by default
      const groups = groupByLocation(batch.results);
      expect(groups.map((g) => [g.country, g.region, g.city])).toEqual([
        ['us', 'California', 'San Francisco'],
        ['gb', 'England', 'London'],
      ]);
    }
  });

  it("answers 404 {error: 'Not found'} for an unknown request id", async () => {
    const error = await failure(
      api.queries.results('00000000-0000-0000-0000-000000000000'),
      NotFoundError,
    );
    expect(error.body).toEqual({ error: 'Not found' });
  });

  it.skipIf(emulatorOnly("another account's batch needs the emulator admin API"))(
    "answers 404 for another account's request id",
    async () => {
      const submitted = await api.queries.submit(one);
      const other = await target.newAccount();
      await failure(
        target.api({ apiKey: other.apiKey }).queries.results(submitted.request_id),
        NotFoundError,
      );
    },
  );

  it.skipIf(emulatorOnly('making a row fail needs the emulator'))(
    'refunds a failed row before it is visible as failed',
    async () => {
      const acct = await target.newAccount({ balance: 10 });
      const client = target.api({ apiKey: acct.apiKey });
      const start = (await client.balance()).balance;
      const batch = await client.queries.run(
        { ...one, questions: [`this one fails ${FAIL_MARKER}`] },
        { intervalMs: 100 },
      );
      expect(batch.results[0]?.status).toBe('failed');
      expect((await client.balance()).balance).toBe(start);
    },
  );

  it.skipIf(emulatorOnly('21 submits in a minute would spend 20 credits on the real service'))(
    'answers 429 with Retry-After past 20 submits a minute',
    async () => {
      const acct = await target.newAccount({ balance: 100 });
      const raw = target.raw(acct.apiKey);
      const submit = () =>
        raw.request({ method: 'POST', path: '/llm/submit/', body: one, what: 'submit' });
      for (let i = 0; i < 20; i++) await submit();
      const error = await failure(submit(), RateLimitError);
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(typeof (error.body as { error: unknown }).error).toBe('string');
    },
  );

  it.skipIf(emulatorOnly('splitting a large job costs many credits on the real service'))(
    'runMany splits a job larger than one submit and merges every row',
    async () => {
      const questions = Array.from({ length: 22 }, (_, i) => `question ${i}?`);
      const out = await api.queries.runMany(
        { questions, platforms: ['assistant_b'], locations: [{ country: 'de' }] },
        { intervalMs: 200 },
      );
      expect(out.request_ids).toHaveLength(2);
      expect(out.results).toHaveLength(22);
    },
  );
});
