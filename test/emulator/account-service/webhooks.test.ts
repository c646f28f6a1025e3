import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/emulator/account-service/types.js';
import { json, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { type Harness, startHarness } from './harness.js';

function expectedSignature(secret: string, id: string, ts: string, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`;
}

describe('account service: webhooks', () => {
  let h: Harness;
  let acct: AccountRecord;
  let receiver: TestServer;
  beforeEach(async () => {
    h = await startHarness();
    acct = h.addAccount();
    receiver = await startTestServer();
    receiver.respond(json(200, { ok: true }));
  });
  afterEach(async () => {
    await h.close();
    await receiver.close();
  });

  const create = (body: Record<string, unknown>) =>
    h.call('POST', '/webhooks', { key: acct.apiKey, body });

  it('lists event types as a bare array, without any query-result event', async () => {
    const r = await h.call('GET', '/webhooks/event-types', { key: acct.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.map((e: any) => e.type)).toContain('credits.low');
    for (const e of r.body)
      expect(Object.keys(e).sort()).toEqual(['category', 'description', 'type']);
    expect(r.body.some((e: any) => /query|result/.test(e.type))).toBe(false);
  });

  it('returns the secret on create only, and last_delivery on every webhook', async () => {
    const created = await create({ url: `${receiver.origin}/hook`, events: ['credits.low'] });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body).toMatchObject({ description: '', enabled: true });
    const fetched = await h.call('GET', `/webhooks/${created.body.id}`, { key: acct.apiKey });
    const listed = await h.call('GET', '/webhooks', { key: acct.apiKey });
    for (const hook of [fetched.body, listed.body[0]]) {
      expect(hook.secret).toBeUndefined();
      expect(hook.last_delivery).toEqual({ at: null, status: 'never', response_code: null });
    }
  });

  it('rejects a long url, a long description and unknown events with field errors', async () => {
    const r = await create({
      url: `https://example.com/${'x'.repeat(500)}`,
      events: ['nope'],
      description: 'd'.repeat(201),
    });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body).sort()).toEqual(['description', 'events', 'url']);
  });

  it('treats PUT as a full replacement: omitted description empties, omitted enabled is true', async () => {
    const created = await create({
      url: `${receiver.origin}/hook`,
      events: ['credits.low'],
      description: 'keep me',
      enabled: false,
    });
    const put = await h.call('PUT', `/webhooks/${created.body.id}`, {
      key: acct.apiKey,
      body: { url: `${receiver.origin}/other`, events: ['credits.low'] },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      description: '',
      enabled: true,
      url: `${receiver.origin}/other`,
    });
  });

  it('deletes with 204 and then answers 404', async () => {
    const created = await create({ url: `${receiver.origin}/hook`, events: ['credits.low'] });
    const del = await h.call('DELETE', `/webhooks/${created.body.id}`, { key: acct.apiKey });
    expect(del.status).toBe(204);
    const again = await h.call('GET', `/webhooks/${created.body.id}`, { key: acct.apiKey });
    expect(again.status).toBe(404);
  });

  it('delivers a signed Standard Webhooks POST and records last_delivery', async () => {
    const created = await create({ url: `${receiver.origin}/hook`, events: ['credits.purchased'] });
    await h.call('POST', '/_emulator/events', {
      body: { accountId: acct.id, type: 'credits.purchased', data: { credits: 5 } },
    });
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0]!;
    const id = String(req.headers['webhook-id']);
    const ts = String(req.headers['webhook-timestamp']);
    expect(req.headers['webhook-signature']).toBe(
      expectedSignature(created.body.secret, id, ts, req.body),
    );
    expect(JSON.parse(req.body)).toMatchObject({ type: 'credits.purchased', data: { credits: 5 } });
    const hook = await h.call('GET', `/webhooks/${created.body.id}`, { key: acct.apiKey });
    expect(hook.body.last_delivery).toMatchObject({ status: 'success', response_code: 200 });
  });

  it('signs with both secrets during the rotation window, then only the new one', async () => {
    const created = await create({ url: `${receiver.origin}/hook`, events: ['credits.purchased'] });
    const rotated = await h.call('POST', `/webhooks/${created.body.id}/rotate-secret`, {
      key: acct.apiKey,
    });
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(Date.parse(rotated.body.previous_secret_valid_until)).toBeGreaterThan(h.clock.now());
    const fire = () =>
      h.call('POST', '/_emulator/events', {
        body: { accountId: acct.id, type: 'credits.purchased' },
      });
    await fire();
    const sigs = String(receiver.requests[0]!.headers['webhook-signature']).split(' ');
    expect(sigs).toHaveLength(2);
    h.clock.advance(24 * 60 * 60 * 1000 + 1);
    await fire();
    const req = receiver.requests[1]!;
    expect(req.headers['webhook-signature']).toBe(
      expectedSignature(
        rotated.body.secret,
        String(req.headers['webhook-id']),
        String(req.headers['webhook-timestamp']),
        req.body,
      ),
    );
  });

  it('drops the previous secret at once when the rotation window is null', async () => {
    await h.close();
    h = await startHarness({ rotationWindowMs: null });
    acct = h.addAccount();
    const created = await create({ url: `${receiver.origin}/hook`, events: ['credits.low'] });
    const rotated = await h.call('POST', `/webhooks/${created.body.id}/rotate-secret`, {
      key: acct.apiKey,
    });
    expect(rotated.body.previous_secret_valid_until).toBeNull();
  });

  it('records response_code null when the receiver is unreachable, and skips disabled hooks', async () => {
    const dead = await create({ url: 'http://127.0.0.1:1/hook', events: ['credits.purchased'] });
    await create({ url: `${receiver.origin}/off`, events: ['credits.purchased'], enabled: false });
    await h.call('POST', '/_emulator/events', {
      body: { accountId: acct.id, type: 'credits.purchased' },
    });
    const hook = await h.call('GET', `/webhooks/${dead.body.id}`, { key: acct.apiKey });
    expect(hook.body.last_delivery).toMatchObject({ status: 'failed', response_code: null });
    expect(receiver.requests).toHaveLength(0);
  });

  it('emits credits.low when a submit crosses the threshold', async () => {
    acct.balance = 6;
    await create({ url: `${receiver.origin}/hook`, events: ['credits.low'] });
    await h.call('POST', '/llm/submit/', {
      key: acct.apiKey,
      body: { questions: ['a', 'b'], platforms: ['assistant_a'], locations: [{ country: 'us' }] },
    });
    await h.service.idle();
    expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({
      type: 'credits.low',
      data: { balance: 4, threshold: 5 },
    });
  });
});
