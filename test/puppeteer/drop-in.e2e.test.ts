import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { isRequestValidationError } from '../../src/http/errors.js';
import { IGNORED_OPTION_CODE, resetIgnoredWarnings } from '../../src/launch/drop-in-options.js';
import { clearPreflightCache } from '../../src/launch/preflight.js';
import { LaunchError, puppeteer, sessionOf } from '../../src/puppeteer/index.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { eventually } from '../helpers/pages.js';

// No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
const env = useEmulatorAndSite({ ffmpegPath: false });
let api: BrowserApi;
let warnings: Error[] = [];
const onWarning = (w: Error) => {
  if ((w as { code?: string }).code === IGNORED_OPTION_CODE) warnings.push(w);
};
const running = async () => (await api.sessions.list({ status: 'running' })).length;
const settled = () => new Promise((r) => setImmediate(r));

beforeAll(async () => {
  process.on('warning', onWarning);
});
afterAll(async () => {
  process.off('warning', onWarning);
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

/** What puppeteer-extra's stealth plugin and Crawlee's PuppeteerPlugin add to every launch. */
const LOCAL_OPTIONS = {
  headless: true,
  args: ['--no-sandbox', '--window-size=700,500', '--lang=de-DE', '--user-agent=rb-pptr-agent'],
  ignoreDefaultArgs: ['--enable-automation'],
  userDataDir: '/tmp/puppeteer_dev_profile-abc',
  executablePath: '/usr/bin/chromium',
  channel: 'chrome' as const,
  dumpio: false,
};

describe('puppeteer drop-in', () => {
  it('launch() maps --window-size, --lang and --user-agent and warns once for the rest', async () => {
    const browser = await puppeteer.launch({ ...LOCAL_OPTIONS, remote: { api } });
    try {
      expect(await running()).toBe(1);
      const page = await browser.newPage();
      await page.goto(env.site.url('/'));
      expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([700, 500]);
      expect(await page.evaluate(() => navigator.language)).toBe('de-DE');
      expect(await page.evaluate(() => navigator.userAgent)).toBe('rb-pptr-agent');
    } finally {
      await browser.close();
    }
    const again = await puppeteer.launch({ ...LOCAL_OPTIONS, remote: { api } });
    await again.close();
    await settled();
    expect(warnings).toHaveLength(1);
    const text = warnings[0]!.message;
    for (const name of [
      'args: --no-sandbox',
      '`ignoreDefaultArgs`',
      '`userDataDir`',
      '`executablePath`',
      '`channel`',
    ]) {
      expect(text).toContain(name);
    }
    expect(text).not.toMatch(/dumpio|window-size|headless/);
    expect(await running()).toBe(0);
  });

  it('remote.strict makes them an error before any session', async () => {
    const err: any = await puppeteer
      .launch({ ...LOCAL_OPTIONS, remote: { api, strict: true } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(/`ignoreDefaultArgs`.*cannot apply to a remote browser/);
    expect((await api.sessions.list()).length).toBe(0);
  });

  it("rejects `defaultViewport: 'big'` with a typed error naming the field, before any session", async () => {
    const err: any = await puppeteer
      .launch({ defaultViewport: 'big' as never, remote: { api } })
      .catch((e) => e);
    expect(isRequestValidationError(err)).toBe(true);
    expect(err.field).toBe('defaultViewport');
    expect(err.message).toMatch(/defaultViewport: must be `null` or `\{ width, height \}`/);
    const remoteErr: any = await puppeteer
      .launch({ remote: { api, userDataDir: 1 as never } })
      .catch((e) => e);
    expect(remoteErr.field).toBe('remote.userDataDir');
    expect((await api.sessions.list()).length).toBe(0);
  });

  it("maps userDataDir to a saved profile with remote.userDataDir: 'profile'", async () => {
    const options = { userDataDir: '/tmp/crawl/shop', remote: { api, userDataDir: 'profile' } };
    const first = await puppeteer.launch(options as never);
    const page = await first.newPage();
    await page.goto(env.site.url('/'));
    await first.close();
    const second = await puppeteer.launch(options as never);
    const again = await second.newPage();
    await again.goto(env.site.url('/cookie'));
    expect(await again.title()).toBe('cookie=visited=yes');
    await second.close();
    expect((await api.profiles.list()).map((p) => p.name)).toEqual(['shop']);
    await settled();
    expect(warnings).toHaveLength(0);
    expect(await running()).toBe(0);
  });

  it("refuses browser: 'firefox' whatever strict says: remote sessions are Chromium", async () => {
    const err: any = await puppeteer
      .launch({ browser: 'firefox', remote: { api } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(/remote sessions are Chromium/);
  });
});

describe('puppeteer drop-in after a dropped connection (a framework closes the dead browser and launches another)', () => {
  it('close() after a drop keeps the session; the next launch() with the same options re-attaches it with its page where it was', async () => {
    const browser = await puppeteer.launch({ remote: { api } });
    const id = sessionOf(browser).id;
    const [page] = await browser.pages();
    await page!.goto(env.site.url('/form'));
    const gone = new Promise<void>((resolve) => browser.once('disconnected', () => resolve()));
    await env.emu.admin.cutConnections(id);
    await gone;
    await eventually(() => sessionOf(browser).endReason !== undefined, 15_000, 'the drop line');
    await browser.close();
    expect((await api.sessions.retrieve(id)).status).toBe('running');

    const again = await puppeteer.launch({ remote: { api } });
    expect(sessionOf(again).id).toBe(id);
    expect((await again.pages()).map((p) => p.url())).toEqual([env.site.url('/form')]);
    await again.close();
    expect(await running()).toBe(0);
    expect(await api.sessions.list({ status: 'all' })).toHaveLength(1);
  });
});
