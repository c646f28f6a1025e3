/**
 * An emulator on real Chromium that stops leaves nothing in the temp dir: no work dir, no data
 * dir, and none of Chromium's own `org.chromium.Chromium.*` dirs (a killed browser cannot remove
 * them, so each Chromium keeps its temp files in its session's dir).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { client } from './helpers/emulator.js';

let privateTmp: string;
let savedTmp: string | undefined;
beforeAll(() => {
  savedTmp = process.env.TMPDIR;
  privateTmp = mkdtempSync(join(savedTmp ?? '/tmp', 'emulator-temp-dir-e2e-'));
  process.env.TMPDIR = privateTmp;
});
afterAll(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(privateTmp, { recursive: true, force: true });
});

it('leaves nothing new in the temp dir after sessions that were deleted, kept a profile, or ran until close', async () => {
  const emu = await startEmulator();
  const api = client(emu.url, emu.token);
  const body = { proxy_password: emu.proxyPassword };

  const deleted = (await api('POST', '/sessions', { body })).body.data;
  const browser = await chromium.connectOverCDP(deleted.cdp_url);
  await browser.contexts()[0]!.pages()[0]!.goto('data:text/html,<h1>temp</h1>');
  await api('DELETE', `/sessions/${deleted.id}`);
  await browser.close().catch(() => {});

  const profile = (await api('POST', '/profiles', { body: { name: 'kept', store_cache: true } }))
    .body.data;
  const kept = (await api('POST', '/sessions', { body: { ...body, profile_id: profile.id } })).body
    .data;
  await api('DELETE', `/sessions/${kept.id}`);

  await api('POST', '/sessions', { body });
  expect((await emu.admin.state()).chromiumProcesses).toBe(1);
  // While it runs: the emulator's work and data dirs, and no Chromium dir of its own.
  const during = readdirSync(privateTmp);
  expect(during.filter((name) => name.startsWith('remote-browser-emulator-'))).toHaveLength(2);
  expect(during.filter((name) => name.startsWith('org.chromium.Chromium.'))).toEqual([]);
  await emu.close();
  expect(readdirSync(privateTmp)).toEqual([]);
});
