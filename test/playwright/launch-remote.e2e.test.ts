import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import {
  type BrowserContext,
  type BrowserType,
  type Page,
  chromium as realChromium,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { openEntries } from '../../src/launch/ledger.js';
import { clearPreflightCache } from '../../src/launch/preflight.js';
import {
  connectRemote,
  LaunchError,
  launchRemote,
  PreflightError,
  recordingOf,
  sessionOf,
} from '../../src/playwright/index.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { setEnv } from '../helpers/env.js';
import { eventually } from '../helpers/pages.js';

// No recordings but in the one test that downloads one (its own emulator): each costs an ffmpeg
// encode per session, and this file starts some twenty.
const env = useEmulatorAndSite({ ffmpegPath: false });
let cacheDir: string;
let account: { accountId: string; token: string; proxyPassword: string };
let api: BrowserApi;
let restoreEnv: () => void;

/** Running sessions of the current test's account (so one test's leak cannot blame another). */
const running = async () => (await api.sessions.list({ status: 'running' })).length;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'rb-ledger-'));
  restoreEnv = setEnv({ REMOTE_BROWSER_CACHE_DIR: cacheDir });
});

afterAll(async () => {
  restoreEnv?.();
  rmSync(cacheDir, { recursive: true, force: true });
});

async function freshAccount(limits?: { concurrentSessions?: number }) {
  account = await env.emu.admin.createAccount(limits ? { limits } : {});
  api = new BrowserApi({
    baseUrl: env.emu.url,
    token: account.token,
    proxyPassword: account.proxyPassword,
  });
  return account;
}

afterEach(async () => {
  await api?.close();
  clearPreflightCache();
});

/** A real BrowserType whose connectOverCDP is replaced for one failure mode. */
function brokenBrowserType(connectOverCDP: BrowserType['connectOverCDP']): BrowserType {
  return Object.assign(Object.create(realChromium), { connectOverCDP });
}

describe('launchRemote (Playwright)', () => {
  it('returns a native Browser on the session: navigate, default context, sessionOf', async () => {
    await freshAccount();
    const browser = await launchRemote({ api, country: 'us' });
    try {
      expect(browser.constructor.name).toMatch(/Browser/);
      const context = browser.contexts()[0];
      expect(context).toBeDefined();
      const page = context?.pages()[0] ?? (await context!.newPage());
      await page.goto(env.site.url('/'));
      expect(await page.title()).toBe('Home');
      const info = sessionOf(browser);
      expect(info.id).toMatch(/\S/);
      expect(info.liveViewUrl).toMatch(/^http/);
      expect(info.config.country).toBe('us');
      // The live view URL's token is a capability: printed redacted, never whole.
      expect(JSON.stringify(info)).not.toMatch(/token=(?!\[REDACTED\])/);
      expect(await running()).toBe(1);
    } finally {
      await browser.close();
    }
    expect(await running()).toBe(0);
  });

  it('deletes the session exactly once when close() is called twice', async () => {
    await freshAccount();
    const end = vi.spyOn(api.sessions, 'end');
    const browser = await launchRemote({ api });
    await Promise.all([browser.close(), browser.close()]);
    await browser.close();
    expect(end).toHaveBeenCalledTimes(1);
    expect(await running()).toBe(0);
  });

  it('deletes the session when closed through context.browser().close()', async () => {
    await freshAccount();
    const end = vi.spyOn(api.sessions, 'end');
    const browser = await launchRemote({ api });
    await browser.contexts()[0]!.browser()!.close();
    expect(end).toHaveBeenCalledTimes(1);
    expect(await running()).toBe(0);
  });

  it('ends the session when its default context is closed: a close, not a dropped connection', async () => {
    await freshAccount();
    const end = vi.spyOn(api.sessions, 'end');
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const browser = await launchRemote({ api });
      // Closing a CDP browser's default context disconnects it (Playwright's own behaviour).
      await browser.contexts()[0]!.close();
      expect(browser.isConnected()).toBe(false);
      expect(end).toHaveBeenCalledTimes(1);
      expect(await running()).toBe(0);
      expect(sessionOf(browser).endReason).toBeUndefined();
      await browser.close();
      expect(end).toHaveBeenCalledTimes(1);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.includes('remote-browser'))).toEqual([]);
  });

  it('deletes the session through Symbol.asyncDispose (await using)', async () => {
    await freshAccount();
    const end = vi.spyOn(api.sessions, 'end');
    {
      await using browser = await launchRemote({ api });
      expect(browser.isConnected()).toBe(true);
    }
    expect(end).toHaveBeenCalledTimes(1);
    expect(await running()).toBe(0);
  });

  it('cleans up once when the session is killed remotely and the browser disconnects', async () => {
    await freshAccount();
    const end = vi.spyOn(api.sessions, 'end');
    const browser = await launchRemote({ api });
    const other = new BrowserApi({ baseUrl: env.emu.url, token: account.token });
    await other.sessions.end(sessionOf(browser).id);
    await other.close();
    await eventually(() => !browser.isConnected(), 10_000, 'disconnect');
    await eventually(() => end.mock.calls.length === 1, 5000, 'the lease to run');
    await browser.close();
    expect(end).toHaveBeenCalledTimes(1);
  });

  it('cleans up when the idle timeout ends the session', async () => {
    await freshAccount();
    const end = vi.spyOn(api.sessions, 'end');
    const browser = await launchRemote({ api, idleTimeoutMinutes: 1 });
    const id = sessionOf(browser).id;
    expect(openEntries().map((e) => e.id)).toContain(id);
    await env.emu.admin.advanceClock(2 * 60_000);
    await eventually(() => !browser.isConnected(), 15_000, 'idle disconnect');
    expect(await running()).toBe(0);
    // The client side: the lease ran once on the disconnect and the ledger has the session ended,
    // so neither a later close() nor a reap tries it again.
    await eventually(() => end.mock.calls.length === 1, 5000, 'the lease to run');
    await eventually(() => !openEntries().some((e) => e.id === id), 5000, 'the ledger entry');
    await browser.close();
    expect(end).toHaveBeenCalledTimes(1);
    expect(end.mock.calls[0]?.[0]).toBe(id);
  });

  it('deletes the session and says so when the connect is refused (bad URL)', async () => {
    await freshAccount();
    const type = brokenBrowserType(((url: string, opts?: object) =>
      realChromium.connectOverCDP(
        url.replace(/token=[^&]+/, 'token=wrong-token-0000'),
        opts,
      )) as BrowserType['connectOverCDP']);
    const err: any = await launchRemote({ api, browserType: type, timeout: 20_000 }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(/could not connect to session .*; the session was deleted/);
    expect(inspect(err, { depth: 5 })).not.toContain(account.token);
    expect(inspect(err, { depth: 5 })).not.toMatch(/token=(?!\[REDACTED\])/);
    expect(await running()).toBe(0);
  });

  it('deletes the session when the connect times out', async () => {
    await freshAccount();
    const type = brokenBrowserType(() => new Promise(() => {}));
    // The connect never settles: only the launch's own timeout can end this call.
    const err: any = await launchRemote({ api, browserType: type, timeout: 8000 }).catch((e) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(/timed out/);
    await eventually(async () => (await running()) === 0, 10_000, 'the session to be deleted');
  });

  it('deletes the session when the caller aborts during connect', async () => {
    await freshAccount();
    const controller = new AbortController();
    const type = brokenBrowserType(() => {
      setTimeout(() => controller.abort(new Error('user gave up')), 50);
      return new Promise(() => {});
    });
    const err: any = await launchRemote({
      api,
      browserType: type,
      signal: controller.signal,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(/aborted/);
    expect(await running()).toBe(0);
  });

  it('deletes the session of a create that outlived the launch timeout, without retrying it', async () => {
    await freshAccount();
    // The service creates the session, then its answer is held back past the launch's timeout.
    await env.emu.admin.injectFault({
      method: 'POST',
      path: '/api/v2/browser/sessions',
      delayMs: 5000,
      afterHandling: true,
    });
    // Had the launch waited for the held-back answer, it would have connected instead of failing.
    const err: any = await launchRemote({ api, timeout: 2500, preflight: false }).catch((e) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(
      /timed out .*while the service was creating the session; it will be deleted.*not retried/,
    );
    // On a loaded machine the service may still be launching it when the launch gives up.
    const all = async () => (await api.sessions.list({ status: 'all' })).length;
    await eventually(async () => (await all()) === 1, 15_000, 'the late session');
    await eventually(async () => (await running()) === 0, 15_000, 'the late session to be deleted');
    expect(await all()).toBe(1);
  });

  it('reconciles a create whose connection dropped after the service created the session, without retrying it', async () => {
    await freshAccount();
    const before = (await env.emu.admin.state()).sessions;
    await env.emu.admin.injectFault({
      method: 'POST',
      path: '/api/v2/browser/sessions',
      dropConnection: true,
      afterHandling: true,
    });
    const err: any = await launchRemote({ api, preflight: false }).catch((e) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(/was ended/);
    expect(await running()).toBe(0);
    expect((await env.emu.admin.state()).sessions - before).toBe(1);
  });

  it('waits for a free slot on 429 so 2x the session limit all launch', async () => {
    await freshAccount({ concurrentSessions: 2 });
    const runs = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const browser = await launchRemote({ api, timeout: 90_000 });
        const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
        await page.goto(env.site.url('/'));
        const title = await page.title();
        await browser.close();
        return title;
      }),
    );
    expect(runs).toEqual(['Home', 'Home', 'Home', 'Home']);
    expect(await running()).toBe(0);
    // The limit held: never more than 2 of its sessions running at once.
    const { peakRunningSessions } = await env.emu.admin.account(account.accountId);
    expect(peakRunningSessions).toBeGreaterThanOrEqual(1);
    expect(peakRunningSessions).toBeLessThanOrEqual(2);
  });

  it('fails fast with the service issues when the preflight rejects the targeting', async () => {
    await freshAccount();
    const before = (await env.emu.admin.state()).sessions;
    // A vocabulary the service owns (which countries exist): only its preflight can reject it.
    const err: any = await launchRemote({ api, country: 'zz' }).catch((e) => e);
    expect(err).toBeInstanceOf(PreflightError);
    expect(err.issues[0].code).toBe('unknown_country');
    expect(err.message).toMatch(/country/);
    expect((await env.emu.admin.state()).sessions).toBe(before);
  });

  it('refuses a city the create would refuse in either preflight mode, before any session', async () => {
    await freshAccount();
    // A city that does not exist in a valid country/region: the service's validate reads the
    // city like its create does, and strict preflight also looks it up in the location list.
    const target = { country: 'us', region: 'ca', city: 'atlantis' };
    const before = (await env.emu.admin.state()).sessions;
    for (const preflight of ['strict', true] as const) {
      const err: any = await launchRemote({ api, ...target, preflight }).catch((e) => e);
      expect(err).toBeInstanceOf(PreflightError);
      expect(err.issues).toEqual([
        expect.objectContaining({ code: 'unknown_city', field: 'city' }),
      ]);
      expect(err.message).toMatch(/atlantis/);
    }
    expect((await env.emu.admin.state()).sessions).toBe(before);
    expect(await running()).toBe(0);
  });

  /**
   * Runs `use` on a new session whose default context routes http://popup.test/ to a page titled
   * "routed", with its tab on the site; closes the browser after.
   */
  async function withRoutedPopups(
    use: (context: BrowserContext, page: Page) => Promise<void>,
  ): Promise<void> {
    await freshAccount();
    const browser = await launchRemote({ api });
    try {
      const context = browser.contexts()[0]!;
      await context.route('http://popup.test/**', (route) =>
        route.fulfill({ contentType: 'text/html', body: '<title>routed</title>' }),
      );
      const page = context.pages()[0]!;
      await page.goto(env.site.url('/'));
      await use(context, page);
    } finally {
      await browser.close();
    }
  }

  it("routes a popup's first request by the context's route, on a machine whose cores are busy", async () => {
    // Both cores busy, as on a crowded CI runner: Playwright's own set-up of a new page then
    // comes late, and a popup resumed before it sent its first request unrouted. Each busy loop
    // ends by itself within a minute, should this process die before it kills them.
    const busy = 'const end = Date.now() + 60_000; while (Date.now() < end);';
    const hogs = [0, 1].map(() => spawn(process.execPath, ['-e', busy], { stdio: 'ignore' }));
    try {
      await withRoutedPopups(async (context, page) => {
        const titles: string[] = [];
        for (let i = 0; i < 12; i++) {
          const [popup] = await Promise.all([
            context.waitForEvent('page'),
            page.evaluate((n) => void window.open(`http://popup.test/${n}`), i),
          ]);
          await popup.waitForLoadState();
          titles.push(await popup.title());
          await popup.close();
        }
        expect(titles).toEqual(Array(12).fill('routed'));
      });
    } finally {
      for (const hog of hogs) hog.kill('SIGKILL');
    }
  });

  it("routes a new tab's and a noopener popup's first request as well, and holds neither", async () => {
    await withRoutedPopups(async (context, page) => {
      const [popup] = await Promise.all([
        context.waitForEvent('page'),
        page.evaluate(() => void window.open('http://popup.test/alone', '_blank', 'noopener')),
      ]);
      await popup.waitForLoadState();
      expect(await popup.title()).toBe('routed');
      const tab = await context.newPage();
      const started = performance.now();
      await tab.goto('http://popup.test/tab');
      // Chromium starts such a page once every holder resumed it: had the library left its
      // resume to Playwright, as for a popup that keeps its opener, this waited out the 2 s
      // after which the library resumes a held page itself.
      expect(performance.now() - started).toBeLessThan(1_500);
      expect(await tab.title()).toBe('routed');
    });
  });

  it('keeps the session with keepSession and reconnects with connectRemote', async () => {
    await freshAccount();
    const first = await launchRemote({ api, keepSession: true });
    const id = sessionOf(first).id;
    await first.close();
    expect(await running()).toBe(1);
    const again = await connectRemote(id, { api });
    expect(sessionOf(again).id).toBe(id);
    await again.close();
    expect(await running()).toBe(0);
  });

  it('downloads the recording after close()', async () => {
    const recording = await startEmulator({ recordingPublicationDelayMs: 500 });
    api = new BrowserApi({
      baseUrl: recording.url,
      token: recording.token,
      proxyPassword: recording.proxyPassword,
    });
    const dir = mkdtempSync(join(tmpdir(), 'rb-rec-'));
    try {
      const browser = await launchRemote({ api, recording: { dir } });
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.goto(env.site.url('/'));
      await page.waitForTimeout(1200);
      await browser.close();
      const { files } = await recordingOf(browser);
      expect(files.length).toBeGreaterThanOrEqual(1);
      expect(readFileSync(files[0]!).subarray(0, 4).toString('hex')).toBe('1a45dfa3');
      // What the file's own emulator is checked for at the end (useEmulatorAndSite).
      await eventually(
        async () => (await recording.admin.state()).runningSessions === 0,
        20_000,
        'zero running sessions',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      // The client is closed by afterEach.
      await recording.close();
    }
  });
});
