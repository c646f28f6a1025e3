import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type AccountApi, webhookIdOf } from '../../src/account-api/index.js';
import { json, type TestServer } from '../helpers/http-server.js';
import { useAccountApi } from './fixtures.js';

const hook = {
  id: 'wh1',
  url: 'https://receiver.example/hook',
  events: ['credits.low'],
  description: 'ops channel',
  enabled: false,
  last_delivery: { at: null, status: 'never', response_code: null },
};

describe('AccountApi webhooks', () => {
  let server: TestServer;
  let api: AccountApi;
  useAccountApi((s, a) => {
    server = s;
    api = a;
  });

  it('update reads, merges and PUTs the complete object, keeping enabled:false and the description', async () => {
    server.respond(json(200, hook), json(200, { ...hook, url: 'https://receiver.example/v2' }));
    await api.webhooks.update('wh1', { url: 'https://receiver.example/v2' });
    expect(server.requests.map((r) => r.method)).toEqual(['GET', 'PUT']);
    expect(JSON.parse(server.requests[1]!.body)).toEqual({
      url: 'https://receiver.example/v2',
      events: ['credits.low'],
      description: 'ops channel',
      enabled: false,
    });
  });

  it('enable sends the description back instead of letting it reset', async () => {
    server.respond(json(200, hook), json(200, { ...hook, enabled: true }));
    await api.webhooks.enable('wh1');
    expect(JSON.parse(server.requests[1]!.body)).toMatchObject({
      enabled: true,
      description: 'ops channel',
    });
  });

  it('registers the secrets of create and rotate so they never print', async () => {
    const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=';
    const rotated = 'whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0';
    server.respond(
      json(201, { ...hook, secret }),
      json(200, { secret: rotated, previous_secret_valid_until: null }),
      json(500, { error: `boom ${secret} ${rotated}` }),
    );
    const created = await api.webhooks.create({ url: hook.url, events: hook.events });
    expect(created.secret).toBe(secret);
    const rotation = await api.webhooks.rotateSecret('wh1');
    expect(rotation.secret).toBe(rotated);
    for (const shown of [
      inspect(created),
      JSON.stringify(created),
      inspect(rotation),
      JSON.stringify(rotation),
    ]) {
      expect(shown).not.toContain(secret);
      expect(shown).not.toContain(rotated);
      expect(shown).toContain('[REDACTED]');
    }
    const error = await api.webhooks.list({ timeout: 100 }).catch((e) => e);
    const printed = `${error.message} ${inspect(error)}`;
    expect(printed).not.toContain(secret);
    expect(printed).not.toContain(rotated);
  });

  it('does not retry a rotation, which would discard the secret just issued', async () => {
    server.respond(json(503, { error: 'busy' }));
    await api.webhooks.rotateSecret('wh1').catch(() => {});
    expect(server.requests).toHaveLength(1);
  });

  it('accepts a bare array or a {results} container for lists', async () => {
    server.respond(json(200, [hook]), json(200, { results: [hook] }));
    expect((await api.webhooks.list()).map((w) => webhookIdOf(w))).toEqual(['wh1']);
    expect((await api.webhooks.list()).map((w) => webhookIdOf(w))).toEqual(['wh1']);
  });

  it('validates a create before sending it', async () => {
    await expect(
      api.webhooks.create({ url: `https://x.example/${'a'.repeat(500)}`, events: ['credits.low'] }),
    ).rejects.toThrow(/url/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('AccountApi notifications', () => {
  let server: TestServer;
  let api: AccountApi;
  useAccountApi((s, a) => {
    server = s;
    api = a;
  });

  it('drain yields every unread notification and marks each read after handling it', async () => {
    const n1 = { notification_id: '11111111-1111-4111-8111-111111111111', message: 'a' };
    const n2 = { notification_id: '22222222-2222-4222-8222-222222222222', message: 'b' };
    server.respond(json(200, [n1, n2]), json(204, undefined), json(204, undefined), json(200, []));
    const seen: string[] = [];
    for await (const n of api.notifications.drain()) seen.push(String(n.message));
    expect(seen).toEqual(['a', 'b']);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/v2/base/notifications/',
      `DELETE /api/v2/base/notifications/${n1.notification_id}`,
      `DELETE /api/v2/base/notifications/${n2.notification_id}`,
      'GET /api/v2/base/notifications/',
    ]);
  });

  it('leaves the notification being handled unread when the loop breaks', async () => {
    server.respond(json(200, [{ notification_id: '11111111-1111-4111-8111-111111111111' }]));
    for await (const _n of api.notifications.drain()) break;
    expect(server.requests.map((r) => r.method)).toEqual(['GET']);
  });
});
