/**
 * A drop-in `puppeteer`: `puppeteer.launch()` runs on a remote session and takes every option
 * the local launch takes, because frameworks (Crawlee, puppeteer-extra) pass local options on
 * every launch. Mapped:
 * - `headless` → the service's `headless` (unless `remote.remoteHeadless` is set);
 * - `timeout` → the launch timeout; `signal` → the launch's abort signal;
 * - `defaultViewport`, `protocolTimeout`, `slowMo`, `targetFilter`, `acceptInsecureCerts` →
 *   `puppeteer.connect` (`defaultViewport` defaults to `null`: the session window's size);
 * - `downloadBehavior` → the remote browser's downloads land in its client `downloadPath`;
 * - `args`: `--window-size=W,H` → `defaultViewport` when none is given, `--lang` → locale
 *   emulation and `--user-agent` → user-agent emulation on every page;
 * - `userDataDir` → a saved profile (a bare name always; a path when `remote.userDataDir` is
 *   `'profile'`);
 * - `browser: 'chrome'` is the session; `'firefox'` is an error (never run on Chromium silently).
 * Ignored with one warning per process (an error with `remote.strict`): `executablePath`,
 * `channel` (local-only), `ignoreDefaultArgs`, `enableExtensions`, `pipe`, `dumpio`, `env`,
 * `devtools`, `debuggingPort`, `extraPrefsFirefox`, other `args` switches (the service runs its
 * own Chromium); `--proxy-server` (the session's own proxy is used); `handleSIG*` (no local
 * process); `waitForInitialPage`, `networkEnabled`, `issuesEnabled`,
 * `handleDevToolsAsPage`, `protocol` (not forwarded to the remote connection); unknown keys.
 */
import type { Browser, LaunchOptions, Page, PuppeteerNode } from 'puppeteer-core';
import {
  type DropInRemoteOptions,
  mapArgs,
  mapUserDataDir,
  settleIgnored,
  sortLocalKeys,
  WHY,
} from '../launch/drop-in-options.js';
import { LaunchError } from '../launch/errors.js';
import { withUserGeo } from '../remote-cdp/geo-resolve.js';
import { parseLaunchOptions } from './launch-options.js';
import {
  type PuppeteerRemoteOptions,
  puppeteerEntries,
  type RemoteBrowser,
} from './launch-remote.js';
import { loadPuppeteer } from './load.js';

const IGNORED: Record<string, string> = {
  executablePath: WHY.localBinary,
  channel: 'a local-only choice: the session runs the service’s Chromium',
  ignoreDefaultArgs: WHY.localBinary,
  enableExtensions: WHY.localBinary,
  pipe: WHY.localBinary,
  dumpio: WHY.localBinary,
  env: WHY.localBinary,
  devtools: WHY.localBinary,
  debuggingPort: WHY.localBinary,
  extraPrefsFirefox: WHY.localBinary,
  handleSIGINT: WHY.noProcess,
  handleSIGTERM: WHY.noProcess,
  handleSIGHUP: WHY.noProcess,
  waitForInitialPage: 'the remote session already has its page',
  networkEnabled: 'not forwarded to the remote connection',
  issuesEnabled: 'not forwarded to the remote connection',
  handleDevToolsAsPage: 'not forwarded to the remote connection',
  protocol: 'remote sessions speak CDP',
};
const PASSED = [
  'defaultViewport',
  'protocolTimeout',
  'slowMo',
  'targetFilter',
  'acceptInsecureCerts',
  'downloadBehavior',
] as const;
const MAPPED = new Set([
  ...PASSED,
  'remote',
  'headless',
  'timeout',
  'signal',
  'args',
  'browser',
  'userDataDir',
]);

export type RemotePuppeteerLaunchOptions = LaunchOptions & {
  /**
   * Where and how the remote session runs (targeting, profile, preflight, recording...), plus
   * the drop-in's own `strict` and `userDataDir`. Default: `{}`.
   */
  remote?: PuppeteerRemoteOptions & DropInRemoteOptions;
};

export interface RemotePuppeteer {
  /** Creates a remote session and returns Puppeteer's native `Browser` on it (`await using` works). */
  launch(options?: RemotePuppeteerLaunchOptions): Promise<RemoteBrowser>;
  /** puppeteer-core's own `connect`, unchanged (no session management). */
  connect: PuppeteerNode['connect'];
}

async function launch(options: Record<string, unknown>): Promise<RemoteBrowser> {
  const what = 'puppeteer.launch';
  const parsed = parseLaunchOptions(what, options);
  const { dropIn, remote } = parsed;
  if (parsed.browser !== undefined && parsed.browser !== 'chrome') {
    throw new LaunchError(
      `${what}: \`browser: '${String(parsed.browser)}'\` cannot apply: remote sessions are Chromium`,
    );
  }
  const ignored = sortLocalKeys(options, MAPPED, IGNORED);
  const args = mapArgs(options.args);
  ignored.push(...args.ignored);
  const dir = mapUserDataDir(options.userDataDir, dropIn.userDataDir);
  if (dir.kind === 'ignored') ignored.push(dir.ignored);
  settleIgnored(what, ignored, dropIn.strict === true);

  const passed: Record<string, unknown> = {};
  for (const key of PASSED) if (options[key] !== undefined) passed[key] = options[key];
  if (passed.defaultViewport == null && args.windowSize) passed.defaultViewport = args.windowSize;
  const browser = await puppeteerEntries.launchDropIn({
    ...(dir.kind === 'profile' ? { profile: { name: dir.name, storeCache: true } } : {}),
    ...remote,
    ...passed,
    ...(typeof options.headless !== 'undefined' && remote.remoteHeadless === undefined
      ? { remoteHeadless: options.headless !== false }
      : {}),
    ...(options.timeout !== undefined && remote.timeout === undefined
      ? { timeout: options.timeout as number }
      : {}),
    ...(options.signal !== undefined && remote.signal === undefined
      ? { signal: options.signal as AbortSignal }
      : {}),
    // `--lang` wins over the exit's locale, on every target as geo applies it.
    ...(args.lang && remote.geo !== false
      ? { geo: withUserGeo(remote.geo, { locale: args.lang }) }
      : {}),
  });
  const geoHasLang = args.lang !== undefined && remote.geo !== false;
  if ((args.lang && !geoHasLang) || args.userAgent) {
    await emulateOnEveryPage(browser, {
      locale: geoHasLang ? undefined : args.lang,
      userAgent: args.userAgent,
    });
  }
  return browser;
}

/** `--lang` / `--user-agent` apply to every page locally: the same through CDP emulation here. */
async function emulateOnEveryPage(
  browser: Browser,
  e: { locale: string | undefined; userAgent: string | undefined },
): Promise<void> {
  const userAgent = e.userAgent ?? (await browser.userAgent());
  const apply = async (page: Page) => {
    const session = await page.createCDPSession();
    await session.send('Emulation.setUserAgentOverride', {
      userAgent,
      ...(e.locale ? { acceptLanguage: e.locale } : {}),
    });
    if (e.locale) await session.send('Emulation.setLocaleOverride', { locale: e.locale });
  };
  browser.on('targetcreated', (target) => {
    void target
      .page()
      .then((page) => page && apply(page))
      .catch(() => {
        // The page closed while it was being prepared.
      });
  });
  for (const page of await browser.pages()) await apply(page).catch(() => {});
}

export const puppeteer: RemotePuppeteer = {
  launch(options = {}) {
    return Promise.resolve().then(() => launch(options as Record<string, unknown>));
  },
  connect: (async (...args: Parameters<PuppeteerNode['connect']>) =>
    (await loadPuppeteer('puppeteer.connect')).connect(...args)) as PuppeteerNode['connect'],
};

export type { DropInRemoteOptions };
