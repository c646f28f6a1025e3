import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/emulator/account-service/types.js';
import { type Harness, startHarness } from './harness.js';

describe('account service: notifications', () => {
  let h: Harness;
  let acct: AccountRecord;
  beforeEach(async () => {
    h = await startHarness();
    acct = h.addAccount();
  });
  afterEach(() => h.close());

  it('lists unread notifications and marks one read with 204', async () => {
    await h.call('POST', '/_emulator/notifications', {
      body: { accountId: acct.id, title: 'Hi', message: 'first' },
    });
    await h.call('POST', '/_emulator/notifications', {
      body: { accountId: acct.id, message: 'second' },
    });
    const list = await h.call('GET', '/notifications/', { key: acct.apiKey });
    expect(list.body.map((n: any) => n.message)).toEqual(['first', 'second']);
    const del = await h.call('DELETE', `/notifications/${list.body[0].notification_id}`, {
      key: acct.apiKey,
    });
    expect(del.status).toBe(204);
    const after = await h.call('GET', '/notifications/', { key: acct.apiKey });
    expect(after.body.map((n: any) => n.message)).toEqual(['second']);
  });

  it('answers 400 for a non-UUID id and 404 for an unknown one', async () => {
    const bad = await h.call('DELETE', '/notifications/not-a-uuid', { key: acct.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.notification_id).toHaveLength(1);
    const unknown = await h.call('DELETE', '/notifications/00000000-0000-4000-8000-000000000000', {
      key: acct.apiKey,
    });
    expect(unknown.status).toBe(404);
  });
});
