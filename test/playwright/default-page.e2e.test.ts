import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { RequestValidationError } from '../../src/http/errors.js';
import {
  DefaultPageError,
  defaultPage,
  EXTRA_CONTEXT_WARNING_CODE,
  ExtraContextError,
  launchRemote,
  sessionOf,
} from '../../src/playwright/index.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';

const env = useEmulatorAndSite({ ffmpegPath: false });
let cacheDir: string;
let api: BrowserApi;
const warnings: Error[] = [];
const onWarning = (warning: Error) => {
  if ((warning as NodeJS.ErrnoException).code === EXTRA_CONTEXT_WARNING_CODE)
    warnings.push(warning);
};

const running = async () => (await api.sessions.list({ status: 'running' })).length;
/** process.emitWarning delivers on the next tick. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'rb-ledger-'));
  process.env.REMOTE_BROWSER_CACHE_DIR = cacheDir;
  process.on('warning', onWarning);
});

afterAll(async () => {
  process.off('warning', onWarning);
  rmSync(cacheDir, { recursive: true, force: true });
});

beforeEach(() => {
  api = new BrowserApi({
    baseUrl: env.emu.url,
    token: env.emu.token,
    proxyPassword: env.emu.proxyPassword,
  });
});

afterEach(async () => {
  expect(await running()).toBe(0);
  await api.close();
});

describe('defaultPage(browser)', () => {
  it("returns the session's own first tab, the one the service reports", async () => {
    await using browser = await launchRemote({ api, preflight: false });
    const page = defaultPage(browser);
    expect(page.context()).toBe(browser.contexts()[0]);
    await page.goto(env.site.url('/'));
    const tabs = await api.sessions.pages(sessionOf(browser).id);
    expect(tabs.map((t) => t.url)).toEqual([env.site.url('/')]);
  });

  it('throws DefaultPageError naming the cause when that tab was closed', async () => {
    await using browser = await launchRemote({ api, preflight: false });
    await defaultPage(browser).close();
    expect(() => defaultPage(browser)).toThrow(DefaultPageError);
    expect(() => defaultPage(browser)).toThrow(/default context has no open page/);
  });
});

// In file order: 'allow' runs before any warning was emitted in this process, so its silence is
// not the once-per-process flag's.
describe('browser.newPage()/newContext() on a remote browser', () => {
  it("says nothing with extraContexts: 'allow', and the context opens", async () => {
    await using browser = await launchRemote({ api, preflight: false, extraContexts: 'allow' });
    const page = await browser.newPage();
    await page.goto(env.site.url('/'));
    await tick();
    expect(warnings).toEqual([]);
    expect(browser.contexts()).toHaveLength(2);
  });

  it('warns once per process, naming the consequence and defaultPage(browser)', async () => {
    const first = await launchRemote({ api, preflight: false });
    const second = await launchRemote({ api, preflight: false });
    try {
      await first.newPage();
      await first.newContext();
      await second.newPage();
      await tick();
      expect(warnings).toHaveLength(1);
      const [warning] = warnings;
      expect(warning?.name).toBe('RemoteBrowserWarning');
      expect(warning?.message).toMatch(/^remote-browser: browser\.newPage\(\) opens a second/);
      expect(warning?.message).toMatch(/recording and live view follow its default context/);
      expect(warning?.message).toMatch(/defaultPage\(browser\)/);
      expect(warning?.message).toMatch(/extraContexts: 'allow'/);
      // It is a warning, not a refusal: both contexts opened.
      expect(first.contexts()).toHaveLength(3);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("refuses with ExtraContextError under extraContexts: 'error', opening nothing", async () => {
    await using browser = await launchRemote({ api, preflight: false, extraContexts: 'error' });
    await expect(browser.newPage()).rejects.toThrow(ExtraContextError);
    await expect(browser.newContext()).rejects.toThrow(/browser\.newContext\(\) opens a second/);
    expect(browser.contexts()).toHaveLength(1);
    // The session's own page is still the way in.
    await defaultPage(browser).goto(env.site.url('/'));
  });

  it('rejects an unknown extraContexts value before creating a session', async () => {
    const before = (await env.emu.admin.state()).sessions;
    const launch = launchRemote({ api, preflight: false, extraContexts: 'warning' as never });
    await expect(launch).rejects.toThrow(RequestValidationError);
    await expect(launch).rejects.toThrow(
      /launchRemote: invalid options: extraContexts: must be one of warn, error, allow \(got "warning"\)/,
    );
    expect((await env.emu.admin.state()).sessions).toEqual(before);
  });
});
