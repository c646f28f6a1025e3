import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import type { SessionEnd } from '../../src/launch/end-reason.js';
import * as playwright from '../../src/playwright/index.js';
import * as puppeteer from '../../src/puppeteer/index.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { setEnv } from '../helpers/env.js';
import { eventually } from '../helpers/pages.js';
import { useCapturedWarnings } from '../helpers/warnings.js';
import { runChildScript } from './child-script.js';

const env = useEmulatorAndSite({ ffmpegPath: false });
let cacheDir: string;
let restoreEnv: () => void;
let api: BrowserApi;
let account: { token: string; proxyPassword: string };

beforeAll(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'rb-reconnect-'));
  restoreEnv = setEnv({ REMOTE_BROWSER_CACHE_DIR: cacheDir });
});
afterAll(() => {
  restoreEnv?.();
  rmSync(cacheDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

const warnings = useCapturedWarnings();
beforeEach(async () => {
  account = await env.emu.admin.createAccount({});
  api = new BrowserApi({
    baseUrl: env.emu.url,
    token: account.token,
    proxyPassword: account.proxyPassword,
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await api?.close();
});

const connection = () => ({
  baseUrl: env.emu.url,
  token: account.token,
  proxyPassword: account.proxyPassword,
  preflight: false as const,
});
const statusOf = async (id: string) => (await api.sessions.retrieve(id)).status;
const running = async () => (await api.sessions.list({ status: 'running' })).length;
const endOf = (browser: object): SessionEnd | undefined => playwright.sessionOf(browser).endReason;

describe('Playwright: a drop is not a close', () => {
  it('keeps the session after a cut, and connectRemote finds the page where it was with its cookie', async () => {
    const browser = await playwright.launchRemote({ ...connection() });
    const id = playwright.sessionOf(browser).id;
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(env.site.url('/'));
    await page.goto(env.site.url('/form'));
    const gone = new Promise<void>((resolve) => browser.once('disconnected', () => resolve()));

    await env.emu.admin.cutConnections(id);
    await gone;
    await eventually(() => endOf(browser) !== undefined, 10_000, 'the reason line');
    expect(endOf(browser)).toMatchObject({ sessionId: id, reason: 'connection_lost' });
    expect(warnings.map((w) => w.code)).toEqual(['REMOTE_BROWSER_CONNECTION_LOST']);
    expect(await statusOf(id)).toBe('running');

    const again = await playwright.connectRemote(id, connection());
    const context = again.contexts()[0]!;
    expect(context.pages().map((p) => p.url())).toEqual([env.site.url('/form')]);
    expect(await context.cookies(env.site.url('/'))).toContainEqual(
      expect.objectContaining({ name: 'visited', value: 'yes' }),
    );
    await again.close();
    expect(await statusOf(id)).toBe('ended');
  });

  it('ends the session once nobody re-attached within the window, and says so', async () => {
    const browser = await playwright.launchRemote({ ...connection(), reconnectWindowMs: 1500 });
    const id = playwright.sessionOf(browser).id;
    await env.emu.admin.cutConnections(id);
    await eventually(() => endOf(browser)?.reason === 'connection_lost', 10_000, 'the drop');
    expect(await statusOf(id)).toBe('running');
    await eventually(async () => (await statusOf(id)) === 'ended', 15_000, 'the window to end it');
    await eventually(() => endOf(browser)?.reason === 'window_passed', 5_000, 'the line');
    expect(warnings.map((w) => w.code)).toEqual([
      'REMOTE_BROWSER_CONNECTION_LOST',
      'REMOTE_BROWSER_RECONNECT_WINDOW_PASSED',
    ]);
  });

  it("says 'idle timeout' when the service ended an idle session", async () => {
    const browser = await playwright.launchRemote({ ...connection() });
    const id = playwright.sessionOf(browser).id;
    await env.emu.admin.advanceClock(10 * 60_000 + 1000);
    await eventually(() => endOf(browser) !== undefined, 15_000, 'the reason line');
    expect(endOf(browser)?.message).toBe(
      `remote-browser: session ${id} ended by the service: idle timeout (10 min); keep the browser busy, or raise idleTimeoutMinutes (up to the account limit)`,
    );
    expect(warnings.map((w) => w.code)).toEqual(['REMOTE_BROWSER_SESSION_ENDED']);
  });

  it("says 'deleted by another client' when someone else ended it", async () => {
    const browser = await playwright.launchRemote({ ...connection() });
    const id = playwright.sessionOf(browser).id;
    await api.sessions.end(id);
    await eventually(() => endOf(browser) !== undefined, 15_000, 'the reason line');
    expect(endOf(browser)).toMatchObject({ reason: 'deleted_elsewhere' });
    expect(endOf(browser)?.message).not.toContain(account.token);
  });

  it('close() after a drop ends a launchRemote() session: only the drop-ins keep it for their next launch', async () => {
    const browser = await playwright.launchRemote({ ...connection() });
    const id = playwright.sessionOf(browser).id;
    await env.emu.admin.cutConnections(id);
    await eventually(() => endOf(browser)?.reason === 'connection_lost', 10_000, 'the drop');
    await browser.close();
    expect(await statusOf(id)).toBe('ended');
  });

  it('a re-attach cut before it connected keeps the session for another window, and the next one finds the page', async () => {
    const browser = await playwright.launchRemote({ ...connection() });
    const id = playwright.sessionOf(browser).id;
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(env.site.url('/form'));
    await env.emu.admin.cutConnections(id);
    await eventually(() => endOf(browser)?.reason === 'connection_lost', 10_000, 'the drop');

    // The network drops the re-attach's websockets on every connect it tries (three), as a
    // flaky one may: two per connect, the library's and the remote features' own.
    await env.emu.admin.injectFault({ path: '/cdp/*', dropConnection: true, count: 6 });
    await expect(playwright.connectRemote(id, connection())).rejects.toThrow(
      `it still runs and is kept for 60 s: connectRemote('${id}') re-attaches`,
    );
    expect(await statusOf(id)).toBe('running');

    const again = await playwright.connectRemote(id, connection());
    expect(
      again
        .contexts()[0]!
        .pages()
        .map((p) => p.url()),
    ).toEqual([env.site.url('/form')]);
    await again.close();
    expect(await statusOf(id)).toBe('ended');
    expect(warnings.map((w) => w.code)).toEqual([
      'REMOTE_BROWSER_CONNECTION_LOST',
      'REMOTE_BROWSER_CONNECTION_LOST',
    ]);
  });

  it('a launch whose connect the network drops connects again to the same session, and creates no other', async () => {
    await env.emu.admin.injectFault({ path: '/cdp/*', dropConnection: true, count: 2 });
    const browser = await playwright.launchRemote({ ...connection() });
    expect((await env.emu.admin.listFaults()).length).toBe(0);
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(env.site.url('/form'));
    expect((await api.sessions.list({ status: 'all' })).length).toBe(1);
    await browser.close();
    expect(await running()).toBe(0);
  });

  it("a connect that stalls while the features' connection drops is tried again at once, not at the launch's timeout", async () => {
    // A cut as the reconnect soak met it: both connections drop, and the library's connect never
    // hears of its own (Playwright's misses its socket's close between the socket's open and its
    // CDP connection's start). Here the features' connection (opened first) is dropped once its
    // setup went out, and the library's is held for 12 s: a connect that does not answer.
    await env.emu.admin.injectFault({ path: '/cdp/*', afterHandling: true });
    await env.emu.admin.injectFault({ path: '/cdp/*', delayMs: 12_000 });
    const started = performance.now();
    const browser = await playwright.launchRemote({ ...connection() });
    expect(performance.now() - started).toBeLessThan(8000);
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(env.site.url('/form'));
    expect((await api.sessions.list({ status: 'all' })).length).toBe(1);
    await browser.close();
    expect(await running()).toBe(0);
  });

  it('reconnectWindowMs 0 deletes at once, as before', async () => {
    const browser = await playwright.launchRemote({ ...connection(), reconnectWindowMs: 0 });
    const id = playwright.sessionOf(browser).id;
    await env.emu.admin.cutConnections(id);
    await eventually(async () => (await statusOf(id)) === 'ended', 15_000, 'the delete');
  });
});

describe('Puppeteer: a drop is not a close', () => {
  it('keeps the session after a cut, and connectRemote finds the page where it was with its cookie', async () => {
    const browser = await puppeteer.launchRemote({ ...connection() });
    const id = puppeteer.sessionOf(browser).id;
    const [page] = await browser.pages();
    await page!.goto(env.site.url('/'));
    await page!.goto(env.site.url('/form'));

    await env.emu.admin.cutConnections(id);
    await eventually(() => endOf(browser)?.reason === 'connection_lost', 10_000, 'the drop');
    expect(await statusOf(id)).toBe('running');

    const again = await puppeteer.connectRemote(id, connection());
    const pages = await again.pages();
    expect(pages.map((p) => p.url())).toEqual([env.site.url('/form')]);
    expect(await again.cookies()).toContainEqual(
      expect.objectContaining({ name: 'visited', value: 'yes' }),
    );
    await again.close();
    expect(await statusOf(id)).toBe('ended');
  });

  it('a re-attach cut before it connected keeps the session for another window, and the next one finds the page', async () => {
    const browser = await puppeteer.launchRemote({ ...connection() });
    const id = puppeteer.sessionOf(browser).id;
    const [page] = await browser.pages();
    await page!.goto(env.site.url('/form'));
    await env.emu.admin.cutConnections(id);
    await eventually(() => endOf(browser)?.reason === 'connection_lost', 10_000, 'the drop');

    // Every connect's two websockets (Puppeteer's and the remote features'), three connects.
    await env.emu.admin.injectFault({ path: '/cdp/*', dropConnection: true, count: 6 });
    await expect(puppeteer.connectRemote(id, connection())).rejects.toThrow(
      `it still runs and is kept for 60 s: connectRemote('${id}') re-attaches`,
    );
    expect(await statusOf(id)).toBe('running');

    const again = await puppeteer.connectRemote(id, connection());
    expect((await again.pages()).map((p) => p.url())).toEqual([env.site.url('/form')]);
    await again.close();
    expect(await statusOf(id)).toBe('ended');
  });

  it('ends the session once nobody re-attached within the window', async () => {
    const browser = await puppeteer.launchRemote({ ...connection(), reconnectWindowMs: 1500 });
    const id = puppeteer.sessionOf(browser).id;
    await env.emu.admin.cutConnections(id);
    await eventually(() => endOf(browser)?.reason === 'connection_lost', 10_000, 'the drop');
    await eventually(async () => (await statusOf(id)) === 'ended', 15_000, 'the window to end it');
    expect(await running()).toBe(0);
  });
});

describe('a process in the window', () => {
  async function child(mode: string, lib: 'playwright' | 'puppeteer') {
    const run = runChildScript('reconnect-child.ts', {
      CHILD_MODE: mode,
      CHILD_LIB: lib,
      REMOTE_BROWSER_URL: env.emu.url,
      REMOTE_BROWSER_TOKEN: account.token,
      REMOTE_BROWSER_PROXY_PASSWORD: account.proxyPassword,
      REMOTE_BROWSER_CACHE_DIR: cacheDir,
    });
    await eventually(
      () => /session (\S+)/.test(run.output()) || run.child.exitCode !== null,
      60_000,
      'the child to launch',
    );
    const id = /session (\S+)/.exec(run.output())?.[1];
    if (!id) throw new Error(`child failed: ${run.output()}`);
    await env.emu.admin.cutConnections(id);
    await eventually(
      () => run.output().includes('REMOTE_BROWSER_CONNECTION_LOST'),
      20_000,
      'the drop',
    );
    return { ...run, id };
  }

  for (const lib of ['playwright', 'puppeteer'] as const) {
    it(`${lib}: exiting during the window leaves no session (exit hooks)`, async () => {
      const run = await child('hooks exit', lib);
      expect((await run.exited).code).toBe(0);
      expect(await statusOf(run.id)).toBe('ended');
    });
  }

  for (const lib of ['playwright', 'puppeteer'] as const) {
    it(`${lib}: a drop-in browser closed after its drop, with nothing left to run, has its kept session ended as the process exits (no exit hooks)`, async () => {
      const run = await child('drop-in exit', lib);
      expect((await run.exited).code).toBe(0);
      expect(await statusOf(run.id)).toBe('ended');
    });
  }

  it('a SIGKILLed process in the window has its session ended by the watchdog', async () => {
    const run = await child('watchdog', 'playwright');
    expect(await statusOf(run.id)).toBe('running');
    run.child.kill('SIGKILL');
    await run.exited;
    await eventually(async () => (await statusOf(run.id)) === 'ended', 15_000, 'the watchdog');
  });
});
