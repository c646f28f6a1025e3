/**
 * The webhook and notification contract (account-api.md), through `AccountApi`. Deliveries go
 * to a loopback receiver, so they are proven on the emulator only; CRUD, the PUT-replacement
 * trap and rotation run on the real service too (with webhooks this suite creates and deletes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountApi,
  SecretRing,
  verifyWebhook,
  webhookIdOf,
} from '../../../src/account-api/index.js';
import {
  BadRequestError,
  NotFoundError,
  RequestValidationError,
} from '../../../src/http/errors.js';
import { json, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { emulatorOnly } from '../target.js';
import { type AccountTarget, startAccountTarget } from './target.js';

let target: AccountTarget;
let api: AccountApi;
let receiver: TestServer;
const created: string[] = [];

beforeAll(async () => {
  target = await startAccountTarget();
  api = target.api();
  receiver = await startTestServer();
  receiver.respond(json(200, { received: true }));
});

afterAll(async () => {
  for (const id of created) await api.webhooks.delete(id).catch(() => undefined);
  await receiver?.close();
  await target?.close();
});

async function firstEventType(): Promise<string> {
  const types = await api.webhooks.eventTypes();
  expect(types.length).toBeGreaterThan(0);
  return types[0]!.type;
}

async function createHook(
  input: { description?: string; enabled?: boolean; events?: string[] } = {},
) {
  const hook = await api.webhooks.create({
    url: target.emulator
      ? `${receiver.origin}/hook`
      : 'https://example.com/remote-browser-contract',
    events: input.events ?? [await firstEventType()],
    ...input,
  });
  created.push(webhookIdOf(hook));
  return hook;
}

describe('account contract: webhooks', () => {
  it('lists event types with type, category and description', async () => {
    const types = await api.webhooks.eventTypes();
    // An empty list would pass the loop below without checking anything.
    expect(types.length).toBeGreaterThan(0);
    for (const e of types) {
      expect(typeof e.type).toBe('string');
      expect(typeof e.category).toBe('string');
      expect(typeof e.description).toBe('string');
    }
  });

  it('returns the secret on create only; list and fetch carry last_delivery and no secret', async () => {
    const hook = await createHook();
    expect(typeof hook.secret).toBe('string');
    const id = webhookIdOf(hook);
    const fetched = await api.webhooks.retrieve(id);
    const listed = (await api.webhooks.list()).find((w) => webhookIdOf(w) === id);
    for (const w of [fetched, listed]) {
      expect(w).toBeDefined();
      expect(w).toHaveProperty('last_delivery');
      expect(w).not.toHaveProperty('secret');
    }
  });

  it('rejects a 501-character url and a 201-character description with 400', async () => {
    const events = [await firstEventType()];
    const raw = target.raw();
    const error = await raw
      .request({
        method: 'POST',
        path: '/webhooks',
        body: {
          url: `https://example.com/${'x'.repeat(481)}`,
          events,
          description: 'd'.repeat(201),
        },
        what: 'create',
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(BadRequestError);
  });

  it('PUT is a full replacement, and update() keeps enabled:false and the description', async () => {
    const hook = await createHook({ description: 'ops channel', enabled: false });
    const id = webhookIdOf(hook);
    await api.webhooks.update(id, { url: hook.url });
    const kept = await api.webhooks.retrieve(id);
    expect(kept.enabled).toBe(false);
    expect(kept.description).toBe('ops channel');
    // The trap itself: a PUT without description and enabled resets both.
    await target.raw().request({
      method: 'PUT',
      path: `/webhooks/${id}`,
      body: { url: hook.url, events: hook.events },
      what: 'put',
    });
    const reset = await api.webhooks.retrieve(id);
    expect(reset.enabled).toBe(true);
    expect(reset.description ?? '').toBe('');
  });

  it('deletes a webhook for good', async () => {
    const hook = await createHook();
    const id = webhookIdOf(hook);
    await api.webhooks.delete(id);
    await expect(api.webhooks.retrieve(id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rotates the secret, returning previous_secret_valid_until', async () => {
    const hook = await createHook();
    const rotation = await api.webhooks.rotateSecret(webhookIdOf(hook));
    expect(rotation.secret).not.toBe(hook.secret);
    expect(rotation).toHaveProperty('previous_secret_valid_until');
  });

  it.skipIf(emulatorOnly('deliveries to a loopback receiver need the emulator'))(
    'delivers signed events that verify across a secret rotation, with last_delivery recorded',
    async () => {
      const hook = await createHook({ events: ['credits.purchased'] });
      const id = webhookIdOf(hook);
      const emulatorNow = await target.now();
      const skew = emulatorNow - Date.now();
      const now = () => Date.now() + skew;
      const ring = new SecretRing({ current: hook.secret, now });
      const fire = async () => {
        receiver.requests.length = 0;
        await target.admin('/events', { type: 'credits.purchased', data: { credits: 1 } });
        const delivered = receiver.requests.find((r) => r.url === '/hook');
        expect(delivered).toBeDefined();
        return delivered!;
      };

      const first = await fire();
      expect(verifyWebhook(first.body, first.headers, { ring, now }).matched).toBe('current');
      const fetched = await api.webhooks.retrieve(id);
      expect(fetched.last_delivery).toMatchObject({ status: 'success', response_code: 200 });

      const rotation = await api.webhooks.rotateSecret(id);
      ring.rotate(rotation);
      const during = await fire();
      // Either secret verifies during the window; the old one alone proves it still signs.
      expect(verifyWebhook(during.body, during.headers, { ring, now }).matched).toBe('current');
      expect(
        verifyWebhook(during.body, during.headers, { secrets: [hook.secret], now }).matched,
      ).toBe('current');

      const windowEnd = Date.parse(rotation.previous_secret_valid_until!);
      await target.emulator!.admin.advanceClock(windowEnd - (await target.now()) + 1000);
      const after = await fire();
      const afterNow = () => Number(after.headers['webhook-timestamp']) * 1000;
      const afterRing = new SecretRing({
        current: rotation.secret,
        previous: hook.secret,
        previousValidUntil: rotation.previous_secret_valid_until,
        now: afterNow,
      });
      expect(afterRing.secrets()).toEqual([rotation.secret]);
      expect(
        verifyWebhook(after.body, after.headers, { ring: afterRing, now: afterNow }).matched,
      ).toBe('current');
      expect(() =>
        verifyWebhook(after.body, after.headers, { secrets: [hook.secret], now: afterNow }),
      ).toThrow(/no signature matches/);
    },
  );

  it.skipIf(emulatorOnly('an unreachable receiver needs the emulator to deliver to it'))(
    'records response_code null when the receiver is unreachable',
    async () => {
      const hook = await api.webhooks.create({
        url: 'http://127.0.0.1:1/unreachable',
        events: ['credits.purchased'],
      });
      created.push(webhookIdOf(hook));
      await target.admin('/events', { type: 'credits.purchased', data: {} });
      const fetched = await api.webhooks.retrieve(webhookIdOf(hook));
      expect(fetched.last_delivery?.response_code).toBeNull();
    },
  );
});

describe('account contract: notifications', () => {
  it('lists unread notifications with 200', async () => {
    expect(Array.isArray(await api.notifications.list())).toBe(true);
  });

  it.skipIf(emulatorOnly('draining would mark the real account’s notifications read'))(
    'drain yields every unread notification and leaves none unread',
    async () => {
      for (const n of await api.notifications.list())
        await api.notifications.markRead(n.notification_id);
      await target.admin('/notifications', { message: 'first' });
      await target.admin('/notifications', { message: 'second' });
      const seen: unknown[] = [];
      for await (const n of api.notifications.drain()) seen.push(n.message);
      expect(seen).toEqual(['first', 'second']);
      expect(await api.notifications.list()).toEqual([]);
    },
  );

  it('answers 400 for a non-UUID id and 404 for an unknown one', async () => {
    // The client refuses a non-UUID before sending: the bare transport proves the service's answer.
    await expect(
      target.raw().request({ method: 'DELETE', path: '/notifications/not-a-uuid', what: 'x' }),
    ).rejects.toBeInstanceOf(BadRequestError);
    await expect(api.notifications.markRead('not-a-uuid')).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    await expect(
      api.notifications.markRead('00000000-0000-4000-8000-000000000000'),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});
