import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import {
  defaultPage,
  createSessionPool as playwrightPool,
  sessionOf,
} from '../../src/playwright/index.js';
import { createSessionPool as puppeteerPool } from '../../src/puppeteer/index.js';
import { eventually, startTestSite, type TestSite } from '../helpers/pages.js';
import { useCapturedWarnings } from '../helpers/warnings.js';

let emu: EmulatorHandle;
let site: TestSite;
let cacheDir: string;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'rb-pool-ledger-'));
  process.env.REMOTE_BROWSER_CACHE_DIR = cacheDir;
  // No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
  [emu, site] = await Promise.all([startEmulator({ ffmpegPath: false }), startTestSite()]);
});

afterAll(async () => {
  await site?.close();
  await emu?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

const warnings = useCapturedWarnings();
afterEach(() => {
  vi.restoreAllMocks();
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

/** Loads `url` in the browser's own page; resolves with the page's URL after the load. */
type Open = (browser: never, url: string) => Promise<string>;

describe.each([
  [
    'Playwright',
    playwrightPool,
    (b: { isConnected(): boolean }) => b.isConnected(),
    (async (browser: Parameters<typeof defaultPage>[0], url) => {
      const page = defaultPage(browser);
      await page.goto(url);
      return page.url();
    }) as Open,
  ],
  [
    'Puppeteer',
    puppeteerPool,
    (b: { connected: boolean }) => b.connected,
    (async (
      browser: { pages(): Promise<{ goto(u: string): Promise<unknown>; url(): string }[]> },
      url,
    ) => {
      const [page] = await browser.pages();
      await page!.goto(url);
      return page!.url();
    }) as Open,
  ],
] as const)('createSessionPool (%s)', (_name, createSessionPool, isConnected, open) => {
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

  it.each([
    [
      'ended by its idle timeout',
      'idle timeout (10 min)',
      // The emulator's clock runs 10 minutes on: its idle timer ends the warm session.
      async () => void (await emu.admin.advanceClock(10 * 60_000 + 1000)),
    ],
    [
      'deleted by another client',
      'deleted by another client',
      async (id: string, api: BrowserApi) => void (await api.sessions.end(id)),
    ],
  ] as const)(
    'never hands out a warm session %s: launch() at once returns a connected browser on another running session, and the line says why',
    async (_case, why, endIt) => {
      const { connection, api, running } = await account();
      // checkWarmAfterMs 0: the warm session counts as idle long enough to be checked (the
      // clock the idle timeout ran on is the emulator's, not the pool's).
      const pool = createSessionPool({ ...connection, size: 1, checkWarmAfterMs: 0 } as never);
      await eventually(() => pool.stats.created === 1, 60_000, 'a warm, connected session');
      const [warm] = await api.sessions.list({ status: 'running' });
      const endedId = warm!.id;

      await endIt(endedId, api);
      const browser = (await pool.launch()) as never as { close(): Promise<void> };
      expect(isConnected(browser as never)).toBe(true);
      const id = sessionOf(browser).id;
      expect(id).not.toBe(endedId);
      expect((await api.sessions.retrieve(id)).status).toBe('running');
      expect(await open(browser as never, site.url('/form'))).toBe(site.url('/form'));
      expect((await api.sessions.retrieve(endedId)).status).toBe('ended');
      // The ended session's one line, naming it and the reason.
      const lines = warnings.filter((w) => w.message.includes(endedId));
      expect(lines).toEqual([
        {
          code: 'REMOTE_BROWSER_SESSION_ENDED',
          message: expect.stringContaining(
            `remote-browser: session ${endedId} ended by the service: ${why};`,
          ),
        },
      ]);
      expect(lines[0]!.message).not.toContain(connection.token);
      expect(pool.stats).toMatchObject({ handedOut: 1, discarded: 1, reattached: 0 });

      await browser.close();
      await pool.close();
      await eventually(async () => (await running()) === 0, 30_000, 'zero running after close');
      await api.close();
    },
  );
});
