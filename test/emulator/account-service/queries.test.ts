import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAIL_MARKER } from '../../../src/emulator/account-service/queries.js';
import type { AccountRecord } from '../../../src/emulator/account-service/types.js';
import { type Harness, startHarness } from './harness.js';

const us = { country: 'us' };
const submitBody = (extra: Record<string, unknown> = {}) => ({
  questions: ['What is the best coffee?'],
  platforms: ['assistant_a'],
  locations: [us],
  ...extra,
});

describe('account service: auth, balance and submit', () => {
  let h: Harness;
  let acct: AccountRecord;
  beforeEach(async () => {
    h = await startHarness();
    acct = h.addAccount({ balance: 10 });
  });
  afterEach(() => h.close());

  it('answers 401 without a key, with Bearer, and with an unknown key, never echoing it', async () => {
    const none = await h.call('GET', '/llm/balance/');
    const bearer = await h.call('GET', '/llm/balance/', {
      headers: { authorization: `Bearer ${acct.apiKey}` },
    });
    const wrong = await h.call('GET', '/llm/balance/', { key: 'ak_not-a-real-key-123' });
    for (const r of [none, bearer, wrong]) {
      expect(r.status).toBe(401);
      expect(typeof r.body.detail).toBe('string');
    }
    expect(JSON.stringify(bearer.body)).not.toContain(acct.apiKey);
    expect(JSON.stringify(wrong.body)).not.toContain('ak_not-a-real-key-123');
  });

  it('answers 403 {detail} on the query endpoints until a purchase, but not on webhooks', async () => {
    const poor = h.addAccount({ purchased: false, balance: 0 });
    expect((await h.call('GET', '/llm/balance/', { key: poor.apiKey })).status).toBe(403);
    const submit = await h.call('POST', '/llm/submit/', { key: poor.apiKey, body: submitBody() });
    expect(submit.status).toBe(403);
    expect(typeof submit.body.detail).toBe('string');
    expect((await h.call('GET', '/llm/results/x/', { key: poor.apiKey })).status).toBe(403);
    expect((await h.call('GET', '/webhooks', { key: poor.apiKey })).status).toBe(200);
    const bought = await h.call('POST', '/_emulator/purchases', {
      body: { apiKey: poor.apiKey, credits: 5 },
    });
    expect(bought.body.balance).toBe(5);
    expect((await h.call('GET', '/llm/balance/', { key: poor.apiKey })).status).toBe(200);
  });

  it('grants 2 free credits on the first balance read of each UTC month', async () => {
    const first = await h.call('GET', '/llm/balance/', { key: acct.apiKey });
    const again = await h.call('GET', '/llm/balance/', { key: acct.apiKey });
    expect(first.body).toEqual({ balance: 12 });
    expect(again.body).toEqual({ balance: 12 });
    const now = new Date(h.clock.now());
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 1);
    h.clock.advance(nextMonth - h.clock.now());
    expect((await h.call('GET', '/llm/balance/', { key: acct.apiKey })).body).toEqual({
      balance: 14,
    });
  });

  it('charges questions × platforms at submit and creates one pending row per location', async () => {
    const r = await h.call('POST', '/llm/submit/', {
      key: acct.apiKey,
      body: submitBody({
        questions: ['q1?', 'q2?'],
        platforms: ['assistant_a', 'assistant_b'],
        locations: [
          { country: 'us', region: 'CA', city: 'SAN FRANCISCO' },
          { country: 'gb', region: 'England', city: 'london' },
          { country: 'fr' },
        ],
      }),
    });
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(12);
    expect(acct.balance).toBe(6);
    for (const row of r.body.results) {
      expect(row.status).toBe('pending');
      expect(row.raw_response).toBeNull();
    }
    const sf = r.body.results.find((row: any) => row.country === 'us');
    expect([sf.region, sf.city]).toEqual(['California', 'San Francisco']);
    const ldn = r.body.results.find((row: any) => row.country === 'gb');
    expect([ldn.region, ldn.city]).toEqual(['England', 'London']);
  });

  it('charges per location too when chargePerLocation is set', async () => {
    await h.close();
    h = await startHarness({ chargePerLocation: true });
    acct = h.addAccount({ balance: 10 });
    const r = await h.call('POST', '/llm/submit/', {
      key: acct.apiKey,
      body: submitBody({ locations: [us, { country: 'de' }, { country: 'fr' }] }),
    });
    expect(r.status).toBe(200);
    expect(acct.balance).toBe(7);
  });

  it('answers 402 stating required and available credits, writing and charging nothing', async () => {
    acct.balance = 1;
    const r = await h.call('POST', '/llm/submit/', {
      key: acct.apiKey,
      body: submitBody({ questions: ['a', 'b', 'c'], platforms: ['assistant_a', 'assistant_b'] }),
    });
    expect(r.status).toBe(402);
    expect(r.body.error).toMatch(/6 required, 1 available/);
    expect(acct.balance).toBe(1);
  });

  it.each([
    [
      'too many questions',
      { questions: Array.from({ length: 21 }, (_, i) => `q${i}`) },
      'questions',
    ],
    ['a too long question', { questions: ['x'.repeat(2048)] }, 'questions'],
    ['an unknown platform', { platforms: ['assistant_z'] }, 'platforms'],
    ['a duplicated platform', { platforms: ['assistant_a', 'assistant_a'] }, 'platforms'],
    ['assistant_c (rejected by default)', { platforms: ['assistant_c'] }, 'platforms'],
    ['no locations', { locations: [] }, 'locations'],
    ['eleven locations', { locations: Array.from({ length: 11 }, () => us) }, 'locations'],
    ['an uppercase country', { locations: [{ country: 'US' }] }, 'country'],
    ['an unavailable country', { locations: [{ country: 'cn' }] }, 'country'],
  ])('answers 400 {field: [messages]} for %s', async (_name, patch, field) => {
    const r = await h.call('POST', '/llm/submit/', { key: acct.apiKey, body: submitBody(patch) });
    expect(r.status).toBe(400);
    expect(Array.isArray(r.body[field])).toBe(true);
    expect(typeof r.body[field][0]).toBe('string');
    expect(acct.balance).toBe(10);
  });

  it('answers 400 for malformed JSON', async () => {
    const r = await h.call('POST', '/llm/submit/', {
      key: acct.apiKey,
      raw: '{"questions": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
  });

  it('resolves rows on the emulator clock, with answers following the sources rules', async () => {
    const sub = await h.call('POST', '/llm/submit/', {
      key: acct.apiKey,
      body: submitBody({ platforms: ['assistant_a', 'assistant_b'] }),
    });
    const id = sub.body.request_id;
    const pending = await h.call('GET', `/llm/results/${id}/`, { key: acct.apiKey });
    expect(pending.body.results.every((r: any) => r.status === 'pending')).toBe(true);
    h.clock.advance(6_000);
    const done = await h.call('GET', `/llm/results/${id}/`, { key: acct.apiKey });
    expect(done.body.request_id).toBe(id);
    for (const row of done.body.results) {
      expect(row.status).toBe('success');
      expect(typeof row.raw_response.text).toBe('string');
      expect(typeof row.question).toBe('string');
      expect(Date.parse(row.updated)).toBeGreaterThanOrEqual(Date.parse(row.created));
    }
    const b = done.body.results.find((r: any) => r.platform === 'assistant_b');
    expect(b.raw_response.text).not.toMatch(/https?:\/\/|\[\d+\]/);
    const a = done.body.results.find((r: any) => r.platform === 'assistant_a');
    expect(a.raw_response.sources.length).toBeGreaterThan(0); // "best" is time-sensitive
  });

  it('refunds a failed row before it is visible as failed', async () => {
    const sub = await h.call('POST', '/llm/submit/', {
      key: acct.apiKey,
      body: submitBody({ questions: [`will fail ${FAIL_MARKER}`, 'fine'] }),
    });
    expect(acct.balance).toBe(8);
    h.clock.advance(6_000);
    const done = await h.call('GET', `/llm/results/${sub.body.request_id}/`, { key: acct.apiKey });
    const statuses = done.body.results.map((r: any) => r.status).sort();
    expect(statuses).toEqual(['failed', 'success']);
    expect(done.body.results.find((r: any) => r.status === 'failed').raw_response).toBeNull();
    expect(acct.balance).toBe(9);
  });

  it('fails the same rows for the same seed with a failure rate', async () => {
    const run = async () => {
      const x = await startHarness({ failureRate: 0.5, seed: 42 });
      const a = x.addAccount({ balance: 100 });
      const sub = await x.call('POST', '/llm/submit/', {
        key: a.apiKey,
        body: submitBody({ questions: Array.from({ length: 10 }, (_, i) => `q${i}`) }),
      });
      x.clock.advance(10_000);
      const res = await x.call('GET', `/llm/results/${sub.body.request_id}/`, { key: a.apiKey });
      await x.close();
      return res.body.results.map((r: any) => r.status).join();
    };
    const first = await run();
    expect(first).toContain('failed');
    expect(await run()).toBe(first);
  });

  it("answers 404 {error: 'Not found'} for unknown and other accounts' request ids", async () => {
    const other = h.addAccount();
    const sub = await h.call('POST', '/llm/submit/', { key: acct.apiKey, body: submitBody() });
    const foreign = await h.call('GET', `/llm/results/${sub.body.request_id}/`, {
      key: other.apiKey,
    });
    const unknown = await h.call('GET', '/llm/results/nope/', { key: acct.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: 'Not found' });
    expect(unknown.body).toEqual({ error: 'Not found' });
  });

  it('answers 429 with retry_after and Retry-After past 20 submits a minute', async () => {
    acct.balance = 1000;
    for (let i = 0; i < 20; i++) {
      expect(
        (await h.call('POST', '/llm/submit/', { key: acct.apiKey, body: submitBody() })).status,
      ).toBe(200);
    }
    const limited = await h.call('POST', '/llm/submit/', { key: acct.apiKey, body: submitBody() });
    expect(limited.status).toBe(429);
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(limited.headers.get('retry-after')).toBe(String(limited.body.retry_after));
    h.clock.advance(60_000);
    expect(
      (await h.call('POST', '/llm/submit/', { key: acct.apiKey, body: submitBody() })).status,
    ).toBe(200);
  });

  it('counts balance and results together against 100 a minute', async () => {
    for (let i = 0; i < 50; i++) await h.call('GET', '/llm/balance/', { key: acct.apiKey });
    for (let i = 0; i < 50; i++) await h.call('GET', '/llm/results/x/', { key: acct.apiKey });
    expect((await h.call('GET', '/llm/balance/', { key: acct.apiKey })).status).toBe(429);
  });
});
