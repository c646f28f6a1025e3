import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { client } from './helpers/emulator.js';
import { type LocalSite, publishLocalSite, startLocalSite } from './helpers/local-site.js';

let emu: EmulatorHandle;
let site: LocalSite;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  [emu, site] = await Promise.all([startEmulator({ ffmpegPath: false }), startLocalSite()]);
  site = await publishLocalSite(emu, site);
  api = client(emu.url, emu.token);
});
afterAll(async () => {
  await emu?.close();
  await site?.close();
});

const create = (body: Record<string, unknown>) =>
  api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword, ...body } });

describe('profiles on real Chromium', () => {
  it('keeps cookies of a store_cache profile across two sessions', async () => {
    const profile = (
      await api('POST', '/profiles', { body: { name: 'cookies', store_cache: true } })
    ).body.data;
    const first = (await create({ profile_id: profile.id })).body.data;
    const browser = await chromium.connectOverCDP(first.cdp_url);
    const page = browser.contexts()[0]?.pages()[0] ?? (await browser.contexts()[0]!.newPage());
    await page.goto(`${site.origin}/set-cookie`);
    await browser.close();
    await api('DELETE', `/sessions/${first.id}`);

    const second = (await create({ profile_id: profile.id })).body.data;
    const config = (await api('GET', `/sessions/${second.id}`)).body.data.config;
    expect(config).toMatchObject({ profile_id: profile.id, profile_name: 'cookies' });
    await api('POST', '/tools/navigate', {
      body: { session_id: second.id, url: `${site.origin}/read-cookie` },
    });
    const read = await api('POST', '/tools/execute-code', {
      body: { session_id: second.id, code: 'document.getElementById("cookie").textContent' },
    });
    expect(read.body.data.result).toContain('remembered=yes');
    await api('DELETE', `/sessions/${second.id}`);
  });

  it('starts a session of a profile without store_cache with no cookies', async () => {
    const profile = (await api('POST', '/profiles', { body: { name: 'no-cache' } })).body.data;
    const first = (await create({ profile_id: profile.id })).body.data;
    await api('POST', '/tools/navigate', {
      body: { session_id: first.id, url: `${site.origin}/set-cookie` },
    });
    await api('DELETE', `/sessions/${first.id}`);
    const second = (await create({ profile_id: profile.id })).body.data;
    await api('POST', '/tools/navigate', {
      body: { session_id: second.id, url: `${site.origin}/read-cookie` },
    });
    const read = await api('POST', '/tools/execute-code', {
      body: { session_id: second.id, code: 'document.getElementById("cookie").textContent' },
    });
    expect(read.body.data.result).toBe('');
    await api('DELETE', `/sessions/${second.id}`);
  });

  it('refuses a second concurrent session on a cached profile with 409, and deleting the profile spares the running one', async () => {
    const profile = (await api('POST', '/profiles', { body: { name: 'busy', store_cache: true } }))
      .body.data;
    const running = (await create({ profile_id: profile.id })).body.data;
    const second = await create({ profile_id: profile.id });
    expect(second.status).toBe(409);
    expect((await api('DELETE', `/profiles/${profile.id}`)).status).toBe(200);
    const content = await api('POST', '/tools/content', { body: { session_id: running.id } });
    expect(content.status).toBe(200);
    expect((await api('GET', `/sessions/${running.id}`)).body.data.config.profile_id).toBe(
      profile.id,
    );
    await api('DELETE', `/sessions/${running.id}`);
  });

  it('pins the location of a pin_ip profile from its first session', async () => {
    const profile = (await api('POST', '/profiles', { body: { name: 'pinned', pin_ip: true } }))
      .body.data;
    expect(profile).not.toHaveProperty('pinned_country');
    const first = (
      await create({
        profile_id: profile.id,
        country: 'fr',
        region: 'idf',
        connection_type: 'mobile',
      })
    ).body.data;
    const pinned = (await api('GET', `/profiles/${profile.id}`)).body.data;
    expect(pinned).toMatchObject({
      pinned_country: 'fr',
      pinned_region: 'idf',
      pinned_city: 'paris',
      pinned_zip: '75001',
      pinned_isp: 'orange',
      pinned_connection_type: 'mobile',
    });
    await api('DELETE', `/sessions/${first.id}`);
    const second = (await create({ profile_id: profile.id })).body.data;
    expect((await api('GET', `/sessions/${second.id}`)).body.data.config).toMatchObject({
      country: 'fr',
      region: 'idf',
      city: 'paris',
      connection_type: 'mobile',
    });
    expect((await create({ profile_id: profile.id, country: 'de' })).status).toBe(400);
    await api('DELETE', `/sessions/${second.id}`);
  });
});
