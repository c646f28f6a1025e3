/**
 * The concurrency limit while creates overlap (a create that finishes must not free the slot of
 * one still launching), the messages a refused create or listing answers with, the pin a pin_ip
 * profile takes from its first session, and what an ended session's routes answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

let emu: FakeEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start() {
  emu = await startFakeEmulator();
  const local = emu;
  const { accountId, token, proxyPassword } = await local.admin.createAccount({
    limits: { concurrentSessions: 2 },
  });
  const api = client(local.url, token);
  const create = (body: Record<string, unknown> = {}) =>
    api('POST', '/sessions', { body: { proxy_password: proxyPassword, ...body } });
  return { emu: local, accountId, api, create };
}

describe('the concurrency limit while creates overlap', () => {
  it('still counts a create that is launching after another one finished', async () => {
    const { emu, accountId, api, create } = await start();
    emu.control.launchDelayMs = 1000;
    const slow = create();
    await expect.poll(() => emu.control.launchesStarted).toBe(1);
    emu.control.launchDelayMs = 25;
    const fast = await create();
    expect(fast.status).toBe(200);
    // One running, one launching: the limit of 2 is reached.
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe(
      'Concurrent session limit reached (2 of 2): end a session or retry later',
    );
    expect((await slow).status).toBe(200);
    expect((await emu.admin.account(accountId)).peakRunningSessions).toBe(2);
    // Every launch gave its slot back: one ended session frees one slot.
    await api('DELETE', `/sessions/${fast.body.data.id}`);
    expect((await create()).status).toBe(200);
    expect((await create()).status).toBe(429);
  });
});

describe('a reset while a create is starting', () => {
  it('tells the client to retry', async () => {
    emu = await startFakeEmulator({ sessionStartMs: 60_000 });
    const local = emu;
    const creating = client(local.url, local.token)('POST', '/sessions', {
      body: { proxy_password: local.proxyPassword },
    });
    await expect.poll(() => local.control.launched.length).toBe(1);
    await local.admin.reset();
    const res = await creating;
    expect(res.status).toBe(503);
    expect(res.body.error).toBe(
      'The emulator was reset or closed while the session was starting; retry the request',
    );
  });
});

describe('a pin_ip profile', () => {
  it('is pinned to the location of its first session, which later sessions inherit', async () => {
    const { api, create } = await start();
    const profile = (await api('POST', '/profiles', { body: { name: 'pinned', pin_ip: true } }))
      .body.data;
    expect(profile).not.toHaveProperty('pinned_country');
    const first = await create({ profile_id: profile.id, country: 'de' });
    expect(first.status).toBe(200);
    expect((await api('GET', `/profiles/${profile.id}`)).body.data.pinned_country).toBe('de');
    await api('DELETE', `/sessions/${first.body.data.id}`);
    const second = (await create({ profile_id: profile.id })).body.data;
    expect((await api('GET', `/sessions/${second.id}`)).body.data.config.country).toBe('de');
  });
});

describe('listing and lookups', () => {
  it('accepts a limit from 1 to 500 in digits only, and says so otherwise', async () => {
    const { api, create } = await start();
    for (let i = 0; i < 2; i++) await create();
    for (const limit of ['1', '10', '500']) {
      const res = await api('GET', `/sessions?limit=${limit}`);
      expect(res.status, limit).toBe(200);
      expect(res.body.data, limit).toHaveLength(Math.min(Number(limit), 2));
    }
    for (const limit of ['0', '501', '5x', 'x5', '1.5', '-1', '']) {
      const res = await api('GET', `/sessions?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.error, limit).toBe('limit must be an integer from 1 to 500');
    }
    const status = await api('GET', '/sessions?status=paused');
    expect(status.status).toBe(400);
    expect(status.body.error).toBe('status must be one of: running, ended, all');
  });

  it('answers an unknown session with "Session not found", and an ended one with no pages', async () => {
    const { api, create } = await start();
    const unknown = await api('GET', '/sessions/00000000-0000-0000-0000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Session not found');
    const { id } = (await create()).body.data;
    await api('DELETE', `/sessions/${id}`);
    const pages = await api('GET', `/sessions/${id}/pages`);
    expect(pages.status).toBe(200);
    expect(pages.body.data).toEqual([]);
  });
});
