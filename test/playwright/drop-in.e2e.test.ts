import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { isRequestValidationError } from '../../src/http/errors.js';
import { IGNORED_OPTION_CODE, resetIgnoredWarnings } from '../../src/launch/drop-in-options.js';
import { clearPreflightCache } from '../../src/launch/preflight.js';
import { chromium, LaunchError, sessionOf } from '../../src/playwright/index.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { eventually } from '../helpers/pages.js';

// No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
const env = useEmulatorAndSite({ ffmpegPath: false });
let cacheDir: string;
let api: BrowserApi;
let warnings: Error[] = [];
const onWarning = (w: Error) => {
  if ((w as { code?: string }).code === IGNORED_OPTION_CODE) warnings.push(w);
};

const running = async () => (await api.sessions.list({ status: 'running' })).length;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'rb-ledger-'));
  process.env.REMOTE_BROWSER_CACHE_DIR = cacheDir;
  process.on('warning', onWarning);
});

afterAll(async () => {
  process.off('warning', onWarning);
  rmSync(cacheDir, { recursive: true, force: true });
});

beforeEach(async () => {
  api = await env.newAccountApi();
  warnings = [];
  resetIgnoredWarnings();
});

afterEach(async () => {
  await api?.close();
  clearPreflightCache();
});

/** process.emitWarning delivers on the next tick. */
const settled = () => new Promise((r) => setImmediate(r));

/** What Crawlee's PlaywrightPlugin passes on every launch, plus a few local-only options. */
const LOCAL_OPTIONS = {
  headless: true,
  args: [
    '--disable-blink-features=AutomationControlled',
    '--no-sandbox',
    '--window-size=640,480',
    '--lang=de-DE',
    '--user-agent=rb-drop-in-agent',
    '--proxy-server=http://user:hunter2@127.0.0.1:9',
  ],
  proxy: { server: 'http://127.0.0.1:9', username: 'u', password: 'proxy-secret' },
  channel: 'msedge',
  executablePath: '/usr/bin/chromium',
  handleSIGINT: true,
};

describe('chromium drop-in', () => {
  it('launch() maps what has a remote meaning and names the rest in one warning per process', async () => {
    const browser = await chromium.launch({ ...LOCAL_OPTIONS, remote: { api } });
    try {
      expect(await running()).toBe(1);
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.goto(env.site.url('/'));
      expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([640, 480]);
      expect(await page.evaluate(() => navigator.language)).toBe('de-DE');
      expect(await page.evaluate(() => navigator.userAgent)).toBe('rb-drop-in-agent');
    } finally {
      await browser.close();
    }
    const again = await chromium.launch({ ...LOCAL_OPTIONS, remote: { api } });
    await again.close();
    await settled();
    expect(warnings).toHaveLength(1);
    const text = warnings[0]!.message;
    for (const name of [
      'args: --disable-blink-features',
      'args: --no-sandbox',
      '`proxy`',
      'args: --proxy-server',
      '`channel`',
      '`executablePath`',
    ]) {
      expect(text).toContain(name);
    }
    expect(text).toMatch(/`proxy` \(the session's own proxy is used/);
    // Mapped options and local defaults are not named; secrets in values never are.
    expect(text).not.toMatch(/window-size|--lang|--user-agent|headless|handleSIGINT/);
    expect(text).not.toMatch(/hunter2|proxy-secret/);
    expect(await running()).toBe(0);
  });

  it('remote.strict turns the ignored options into an error before any session', async () => {
    const err: any = await chromium
      .launch({ ...LOCAL_OPTIONS, remote: { api, strict: true } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(/`executablePath`.*cannot apply to a remote browser/);
    expect(err.message).toContain('`channel`');
    expect(err.message).not.toContain('hunter2');
    expect((await api.sessions.list()).length).toBe(0);
  });

  it('rejects a malformed `remote` with a typed error naming the field', async () => {
    const err: any = await chromium
      .launch({ remote: { api, strict: 'yes' as unknown as boolean } })
      .catch((e) => e);
    expect(isRequestValidationError(err)).toBe(true);
    expect(err.field).toBe('remote.strict');
    const dirErr: any = await chromium
      .launchPersistentContext('/tmp/x', { remote: { api, userDataDir: 'map' as 'profile' } })
      .catch((e) => e);
    expect(dirErr.field).toBe('remote.userDataDir');
    expect((await api.sessions.list()).length).toBe(0);
  });

  it('drops a new context’s proxy with the same warning and keeps the context working', async () => {
    const browser = await chromium.launch({ remote: { api } });
    try {
      const page = await browser.newPage({ proxy: { server: 'http://127.0.0.1:9' } });
      await page.goto(env.site.url('/'));
      expect(await page.title()).toBe('Home');
      await settled();
      expect(warnings.map((w) => w.message).join()).toMatch(/newContext\.proxy/);
    } finally {
      await browser.close();
    }
  });

  it('launchPersistentContext(path) is a fresh session, or a saved profile when asked', async () => {
    const dir = join(cacheDir, 'crawl-profile');
    const fresh = await chromium.launchPersistentContext(dir, {
      remote: { api },
      locale: 'fr-FR',
      timezoneId: 'Asia/Tokyo',
      isMobile: true,
    });
    const page = fresh.pages()[0]!;
    await page.goto(env.site.url('/'));
    expect(await page.evaluate(() => navigator.language)).toBe('fr-FR');
    expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(
      'Asia/Tokyo',
    );
    await fresh.close();
    await settled();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/`isMobile`.*existing context/);
    expect(warnings[0]!.message).toMatch(/`userDataDir` \(a local directory/);
    expect(await api.profiles.list()).toHaveLength(0);

    const first = await chromium.launchPersistentContext(dir, {
      remote: { api, userDataDir: 'profile' },
    });
    await first.pages()[0]!.goto(env.site.url('/'));
    await first.close();
    const second = await chromium.launchPersistentContext(`${dir}/`, {
      remote: { api, userDataDir: 'profile' },
    });
    const again = second.pages()[0]!;
    await again.goto(env.site.url('/cookie'));
    expect(await again.title()).toBe('cookie=visited=yes');
    await second.close();
    expect((await api.profiles.list()).map((p) => p.name)).toEqual(['crawl-profile']);
    expect(await running()).toBe(0);
  });

  it('launchPersistentContext keeps cookies in a saved profile named by a bare name', async () => {
    const first = await chromium.launchPersistentContext('checkout', { remote: { api } });
    await (first.pages()[0] ?? (await first.newPage())).goto(env.site.url('/'));
    await first.close();
    expect(await running()).toBe(0);
    const second = await chromium.launchPersistentContext('checkout', { remote: { api } });
    const page = second.pages()[0] ?? (await second.newPage());
    await page.goto(env.site.url('/cookie'));
    expect(await page.title()).toBe('cookie=visited=yes');
    await second.close();
    expect((await api.profiles.list()).filter((p) => p.name === 'checkout')).toHaveLength(1);
    expect(await running()).toBe(0);
  });
});

describe('chromium drop-in after a dropped connection (a framework closes the dead browser and launches another)', () => {
  const statusOf = async (id: string) => (await api.sessions.retrieve(id)).status;

  /** Cuts the browser's client connections (the session keeps running) and waits for the drop to be decided. */
  async function drop(browser: Browser): Promise<string> {
    const id = sessionOf(browser).id;
    const gone = new Promise<void>((resolve) => browser.once('disconnected', () => resolve()));
    await env.emu.admin.cutConnections(id);
    await gone;
    await eventually(() => sessionOf(browser).endReason !== undefined, 15_000, 'the drop line');
    return id;
  }

  it('close() after a drop keeps the session; the next launch() with the same options re-attaches it with its page where it was, one with other options does not', async () => {
    const browser = await chromium.launch({ remote: { api } });
    await browser.contexts()[0]!.pages()[0]!.goto(env.site.url('/form'));
    const id = await drop(browser);
    await browser.close();
    expect(await statusOf(id)).toBe('running');

    const other = await chromium.launch({ remote: { api, idleTimeoutMinutes: 5 } });
    expect(sessionOf(other).id).not.toBe(id);
    const again = await chromium.launch({ remote: { api } });
    expect(sessionOf(again).id).toBe(id);
    expect(
      again
        .contexts()[0]!
        .pages()
        .map((p) => p.url()),
    ).toEqual([env.site.url('/form')]);

    await Promise.all([again.close(), other.close()]);
    expect(await statusOf(id)).toBe('ended');
    expect(await running()).toBe(0);
    expect(await api.sessions.list({ status: 'all' })).toHaveLength(2);
  });

  it('a re-attach to a session that ended meanwhile says REMOTE_BROWSER_REATTACH_FAILED and the launch creates a new session', async () => {
    const said: { code: string | undefined; message: string }[] = [];
    const onSaid = (w: Error) =>
      said.push({ code: (w as { code?: string }).code, message: w.message });
    process.on('warning', onSaid);
    try {
      const browser = await chromium.launch({ remote: { api } });
      const id = await drop(browser);
      await browser.close();
      // Another client ends it while it is kept.
      await api.sessions.end(id);
      const next = await chromium.launch({ remote: { api } });
      expect(sessionOf(next).id).not.toBe(id);
      expect(await statusOf(sessionOf(next).id)).toBe('running');
      await settled();
      expect(said.filter((w) => w.code === 'REMOTE_BROWSER_REATTACH_FAILED')).toEqual([
        expect.objectContaining({
          message: expect.stringContaining(`session ${id}: re-attaching failed`),
        }),
      ]);
      await next.close();
      expect(await running()).toBe(0);
    } finally {
      process.off('warning', onSaid);
    }
  });
});
