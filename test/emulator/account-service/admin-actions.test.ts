/**
 * The account service's admin routes (admin-actions.ts) on the emulator's real server: which
 * accounts a call names (by id, by API key, or every account), what each action changes as the
 * account service's own endpoints then show it, and the flat errors of a bad call.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/emulator/account-service/types.js';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
let a: AccountRecord;
let b: AccountRecord;
beforeEach(async () => {
  h = await startHarness();
  a = h.addAccount({ purchased: false, balance: 0 });
  b = h.addAccount();
});
afterEach(() => h.close());

const unread = async (account: AccountRecord) =>
  (await h.call('GET', '/notifications/', { key: account.apiKey })).body.map(
    (n: { message: string }) => n.message,
  );

describe('POST /_emulator/purchases', () => {
  it('unlocks the query endpoints of the account named by its API key and adds the credits', async () => {
    expect((await h.call('GET', '/llm/balance/', { key: a.apiKey })).status).toBe(403);
    const bought = await h.call('POST', '/_emulator/purchases', {
      body: { apiKey: a.apiKey, credits: 7 },
    });
    expect(bought).toMatchObject({ status: 200, body: { purchased: true, balance: 7 } });
    const balance = await h.call('GET', '/llm/balance/', { key: a.apiKey });
    expect(balance.status).toBe(200);
    expect(balance.body.balance).toBeGreaterThanOrEqual(7);
    expect(b.balance).toBe(100);
  });

  it('adds 100 credits by default, and refuses a call naming no account or an unknown one', async () => {
    const bought = await h.call('POST', '/_emulator/purchases', { body: { accountId: a.id } });
    expect(bought.body).toEqual({ purchased: true, balance: 100 });
    const none = await h.call('POST', '/_emulator/purchases', { body: {} });
    expect(none).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('accountId') },
    });
    const unknown = await h.call('POST', '/_emulator/purchases', { body: { apiKey: 'ak_nope' } });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'Account not found' } });
    const negative = await h.call('POST', '/_emulator/purchases', {
      body: { accountId: a.id, credits: -1 },
    });
    expect(negative.status).toBe(400);
    expect(a.balance).toBe(100);
  });
});

describe('POST /_emulator/notifications', () => {
  it('queues a notification for the account named, or for every account when none is', async () => {
    const one = await h.call('POST', '/_emulator/notifications', {
      body: { accountId: b.id, message: 'for b', title: 'Hi', category: 'billing' },
    });
    expect(one.status).toBe(201);
    expect(one.body.notifications).toHaveLength(1);
    expect(one.body.notifications[0]).toMatchObject({ message: 'for b', title: 'Hi' });
    const all = await h.call('POST', '/_emulator/notifications', { body: { message: 'for all' } });
    expect(all.body.notifications).toHaveLength(2);
    expect(await unread(b)).toEqual(['for b', 'for all']);
    expect(await unread(a)).toEqual(['for all']);
  });

  it('refuses an empty message naming the field', async () => {
    const empty = await h.call('POST', '/_emulator/notifications', { body: { message: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toContain('message');
    expect(await unread(b)).toEqual([]);
  });
});

describe('POST /_emulator/events', () => {
  it('refuses an event type the service does not have, and answers with no delivery where no webhook is set', async () => {
    const bad = await h.call('POST', '/_emulator/events', { body: { type: 'no.such.event' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('type');
    const none = await h.call('POST', '/_emulator/events', {
      body: { accountId: a.id, type: 'credits.low', data: { balance: 1 } },
    });
    expect(none).toMatchObject({ status: 200, body: { deliveries: [] } });
  });
});
