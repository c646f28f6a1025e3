/**
 * The credit meter hook (credit-meter.ts) as the account client calls it: a budget's meter is
 * asked before the submit is sent, given the credits back when the submit fails, told the
 * charge on success (questions x platforms) and each failed row read back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CreditMeter,
  creditMeter,
  creditsOf,
  installCreditMeter,
} from '../../src/account-api/credit-meter.js';
import { AccountApi } from '../../src/account-api/index.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { pendingRow, row, validSubmit } from './fixtures.js';

describe('the credit meter', () => {
  let server: TestServer;
  let api: AccountApi;
  let heard: string[];
  let previous: CreditMeter | undefined;
  beforeEach(async () => {
    server = await startTestServer();
    api = new AccountApi({ apiKey: 'ak_test_key_123', baseUrl: server.origin });
    heard = [];
    previous = creditMeter();
    installCreditMeter({
      reserve: (credits, what) => {
        heard.push(`reserve ${credits} ${what} (sent so far: ${server.requests.length})`);
        if (credits > 4) throw new Error('over budget');
      },
      unreserve: (credits) => heard.push(`unreserve ${credits}`),
      charged: (id, credits) => heard.push(`charged ${id} ${credits}`),
      refunded: (id, key) => heard.push(`refunded ${id} ${key}`),
    });
  });
  afterEach(async () => {
    if (previous) installCreditMeter(previous);
    await api.close();
    await server.close();
  });

  it('charges questions x platforms, locations aside', () => {
    expect(
      creditsOf({ questions: ['a', 'b', 'c'], platforms: ['assistant_a', 'assistant_b'] }),
    ).toBe(6);
  });

  it('is asked before the submit is sent, and told its charge and each failed row', async () => {
    server.respond(
      json(200, { request_id: 'b1', results: [pendingRow(), pendingRow({ id: 'r2' })] }),
      json(200, {
        request_id: 'b1',
        results: [row(), row({ id: 'r2', status: 'failed', raw_response: null })],
      }),
    );
    await api.queries.submit({ ...validSubmit, platforms: ['assistant_a', 'assistant_b'] });
    await api.queries.results('b1');
    expect(heard).toEqual([
      'reserve 2 queries.submit (sent so far: 0)',
      'charged b1 2',
      'refunded b1 r2',
    ]);
  });

  it('a refusal sends nothing; a failed submit gives the credits back', async () => {
    const refused = await api.queries
      .submit({
        ...validSubmit,
        questions: ['a', 'b', 'c'],
        platforms: ['assistant_a', 'assistant_b'],
      })
      .catch((e: unknown) => e);
    expect((refused as Error).message).toBe('over budget');
    expect(server.requests).toHaveLength(0);
    server.respond(json(402, { error: 'Insufficient credits: 1 required, 0 available.' }));
    await expect(api.queries.submit(validSubmit)).rejects.toThrow(/Insufficient/);
    expect(heard.slice(1)).toEqual(['reserve 1 queries.submit (sent so far: 0)', 'unreserve 1']);
  });
});
