/**
 * A session's life in the emulator's control plane over the fake runtime: a cached profile's
 * user-data dir (one session at a time, released on every end, removed after its profile is
 * deleted only once no session holds it) and a reset that comes while a create is starting.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

let emu: FakeEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start(options: Parameters<typeof startFakeEmulator>[0] = {}) {
  emu = await startFakeEmulator(options);
  const api = client(emu.url, emu.token);
  const local = emu;
  const create = (body: Record<string, unknown> = {}) =>
    api('POST', '/sessions', { body: { proxy_password: local.proxyPassword, ...body } });
  const cachedProfile = async (name: string) =>
    (await api('POST', '/profiles', { body: { name, store_cache: true } })).body.data as {
      id: string;
    };
  return { emu: local, api, create, cachedProfile };
}

describe('a profile with store_cache', () => {
  it('serves one session at a time from its own dir under the data dir, and is free again once that session ends', async () => {
    const { emu, api, create, cachedProfile } = await start();
    const profile = await cachedProfile('cached');
    const first = await create({ profile_id: profile.id });
    expect(first.status).toBe(200);
    const dir = emu.control.launched.at(-1)?.spec.userDataDir;
    expect(dir).toMatch(new RegExp(`/profiles/${profile.id}$`));
    expect(existsSync(dir as string)).toBe(true);

    const second = await create({ profile_id: profile.id });
    expect(second.status).toBe(409);
    expect(second.body.error).toContain(`in use by running session ${first.body.data.id}`);
    // A refused create must not release the claim of the session that holds the profile.
    expect((await create({ profile_id: profile.id })).status).toBe(409);
    // A profile without store_cache is not locked to one session.
    const plain = (await api('POST', '/profiles', { body: { name: 'plain' } })).body.data;
    expect((await create({ profile_id: plain.id })).status).toBe(200);
    expect((await create({ profile_id: plain.id })).status).toBe(200);

    await api('DELETE', `/sessions/${first.body.data.id}`);
    const third = await create({ profile_id: profile.id });
    expect(third.status).toBe(200);
    // The same dir again: the cache is what the profile is for.
    expect(emu.control.launched.at(-1)?.spec.userDataDir).toBe(dir);
  });

  it('is claimed from the start of a launch: of two parallel creates, one launches', async () => {
    const { emu, create, cachedProfile } = await start();
    const profile = await cachedProfile('parallel');
    emu.control.launchDelayMs = 200;
    const results = await Promise.all([
      create({ profile_id: profile.id }),
      create({ profile_id: profile.id }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(emu.control.launched).toHaveLength(1);
  });

  it('is free again after a launch that failed', async () => {
    const { emu, create, cachedProfile } = await start();
    const profile = await cachedProfile('after-failure');
    emu.control.failNextLaunch = true;
    expect((await create({ profile_id: profile.id })).status).toBe(502);
    expect((await create({ profile_id: profile.id })).status).toBe(200);
  });

  it('keeps its dir while a session holds it after the profile is deleted, and removes it when that session ends', async () => {
    const { emu, api, create, cachedProfile } = await start();
    const held = await cachedProfile('held');
    const session = (await create({ profile_id: held.id })).body.data;
    const heldDir = emu.control.launched.at(-1)?.spec.userDataDir as string;
    expect((await api('DELETE', `/profiles/${held.id}`)).status).toBe(200);
    // A removal started by the DELETE would run after its answer: give it time to show.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(heldDir)).toBe(true);
    await api('DELETE', `/sessions/${session.id}`);
    expect(existsSync(heldDir)).toBe(false);
  });

  it('has its dir removed at once when the profile is deleted with no session on it', async () => {
    const { emu, api, create, cachedProfile } = await start();
    const idle = await cachedProfile('idle');
    const session = (await create({ profile_id: idle.id })).body.data;
    const dir = emu.control.launched.at(-1)?.spec.userDataDir as string;
    await api('DELETE', `/sessions/${session.id}`);
    expect(existsSync(dir)).toBe(true);
    await api('DELETE', `/profiles/${idle.id}`);
    await expect.poll(() => existsSync(dir)).toBe(false);
  });
});

describe('a reset while a create is starting', () => {
  it('answers that create 503 emulator_reset and stops the browser it launched', async () => {
    const { emu, create } = await start({ sessionStartMs: 60_000 });
    const creating = create();
    await expect.poll(() => emu.control.launched.length).toBe(1);
    await emu.admin.reset();
    const res = await creating;
    expect(res.status).toBe(503);
    expect(JSON.stringify(res.body)).toContain('emulator_reset');
    expect(emu.control.launched[0]?.alive).toBe(false);
    expect((await emu.admin.state()).chromiumProcesses).toBe(0);
  });
});
