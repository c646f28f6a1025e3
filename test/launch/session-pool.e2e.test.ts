import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { createSessionPool as playwrightPool } from '../../src/playwright/index.js';
import { createSessionPool as puppeteerPool } from '../../src/puppeteer/index.js';
import { eventually } from '../helpers/pages.js';

let emu: EmulatorHandle;
let cacheDir: string;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'rb-pool-ledger-'));
  process.env.REMOTE_BROWSER_CACHE_DIR = cacheDir;
  // No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
  emu = await startEmulator({ ffmpegPath: false });
});

afterAll(async () => {
  await emu?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

async function account(concurrentSessions?: number) {
  const created = await emu.admin.createAccount(
    concurrentSessions ? { limits: { concurrentSessions } } : {},
  );
  const connection = {
    baseUrl: emu.url,
    token: created.token,
    proxyPassword: created.proxyPassword,
  };
  const api = new BrowserApi(connection);
  const running = async () => (await api.sessions.list({ status: 'running' })).length;
  return { connection, api, running };
}

describe.each([
  ['Playwright', playwrightPool, (b: { isConnected(): boolean }) => b.isConnected()],
  ['Puppeteer', puppeteerPool, (b: { connected: boolean }) => b.connected],
] as const)('createSessionPool (%s)', (_name, createSessionPool, isConnected) => {
  it('hands out connected browsers on warm sessions, refills, and ends every warm one at close()', async () => {
    const { connection, api, running } = await account();
    const pool = createSessionPool({ ...connection, size: 2 } as never);
    // Two sessions warm before anyone asks.
    await eventually(async () => (await running()) === 2, 60_000, 'two warm sessions');

    const browser = (await pool.launch()) as never as { close(): Promise<void> };
    expect(isConnected(browser as never)).toBe(true);
    // The taken one is replaced in the background: 2 warm + 1 in use.
    await eventually(async () => (await running()) === 3, 60_000, 'a refill after a launch');
    expect(pool.stats).toMatchObject({ handedOut: 1, warm: 2 });

    await browser.close();
    await pool.close();
    expect(await running()).toBe(0);
    expect(pool.stats.created).toBe(3);
    await api.close();
  });

  it('with `await using`, leaves nothing running; at the account limit it never waits for a slot to warm', async () => {
    const { connection, api, running } = await account(1);
    {
      await using pool = createSessionPool({ ...connection, size: 2 } as never);
      const browser = (await pool.launch()) as never as { close(): Promise<void> };
      // The limit is 1: the second warm launch got a 429 and backed off instead of queueing.
      expect(await running()).toBe(1);
      await browser.close();
    }
    await eventually(async () => (await running()) === 0, 30_000, 'zero running after dispose');
    await api.close();
  });
});
