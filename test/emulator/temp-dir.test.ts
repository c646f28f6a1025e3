/** An emulator over the fake runtime that stops leaves nothing in the temp dir. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { client, startFakeEmulator } from './helpers/emulator.js';

let privateTmp: string;
let savedTmp: string | undefined;
beforeEach(() => {
  savedTmp = process.env.TMPDIR;
  privateTmp = mkdtempSync(join(savedTmp ?? '/tmp', 'emulator-temp-dir-test-'));
  process.env.TMPDIR = privateTmp;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(privateTmp, { recursive: true, force: true });
});

it('leaves nothing in the temp dir once closed, recordings and synthetic files included', async () => {
  const emu = await startFakeEmulator();
  const api = client(emu.url, emu.token);
  const body = { proxy_password: emu.proxyPassword };
  const ended = (await api('POST', '/sessions', { body })).body.data.id;
  await api('POST', '/sessions', { body });
  await api('DELETE', `/sessions/${ended}`);
  await emu.admin.addRecording({ sizeBytes: 1024 });
  expect(readdirSync(privateTmp).length).toBeGreaterThan(0);
  await emu.close();
  expect(readdirSync(privateTmp)).toEqual([]);
});
