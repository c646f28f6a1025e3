/**
 * A drop-in `chromium`: `import { chromium } from 'remote-browser/playwright'` instead of
 * 'playwright-core', and `launch()` / `launchPersistentContext()` run on remote sessions. They
 * take every option the local calls take, because frameworks (Crawlee) pass local options on
 * every launch: what has a remote equivalent is mapped, the rest is ignored with one warning per
 * process (`remote: { strict: true }` makes it an error). The table is in launch-options.ts.
 */
import type {
  Browser,
  BrowserContext,
  BrowserContextOptions,
  BrowserType,
  LaunchOptions,
} from 'playwright-core';
import { endSessionOf } from '../launch/browser-registry.js';
import {
  type DropInRemoteOptions,
  mapUserDataDir,
  settleIgnored,
  WHY,
} from '../launch/drop-in-options.js';
import { LaunchError } from '../launch/errors.js';
import { applyContextOptions } from './context-options.js';
import { sortLaunchOptions } from './launch-options.js';
import { closeNative, type PlaywrightRemoteOptions, playwrightEntries } from './launch-remote.js';
import { loadChromium } from './load.js';

export type RemoteLaunchOptions = LaunchOptions & {
  /**
   * Where and how the remote session runs (targeting, profile, preflight, recording...), plus
   * the drop-in's own `strict` and `userDataDir`. Default: `{}`.
   */
  remote?: PlaywrightRemoteOptions & DropInRemoteOptions;
};

export interface RemoteChromium {
  name(): 'chromium';
  /** Creates a remote session and returns Playwright's native `Browser` on it. */
  launch(options?: RemoteLaunchOptions): Promise<Browser>;
  /**
   * A `BrowserContext` on a remote session: the session's own context with the context options
   * applied. `userDataDir`: a bare name is a saved profile (created on first use with
   * `store_cache`, so cookies survive between runs); `''` is a fresh session; a path is a fresh
   * session unless `remote.userDataDir` is `'profile'`. Closing the context deletes the session.
   */
  launchPersistentContext(
    userDataDir: string,
    options?: RemoteLaunchOptions & BrowserContextOptions,
  ): Promise<BrowserContext>;
  /** There is no local binary: throws a LaunchError that says so (kept for BrowserType's shape). */
  executablePath(): string;
  /** A browser server is a local process: throws a LaunchError (kept for BrowserType's shape). */
  launchServer(): Promise<never>;
  /** playwright-core's own `connect`, unchanged. */
  connect: BrowserType['connect'];
  /** playwright-core's own `connectOverCDP`, unchanged (no session management). */
  connectOverCDP: BrowserType['connectOverCDP'];
}

async function launch(what: string, options: Record<string, unknown>): Promise<Browser> {
  const sorted = sortLaunchOptions(what, options, false);
  settleIgnored(what, sorted.ignored, sorted.dropIn.strict === true);
  const browser = await playwrightEntries.launchDropIn(sorted.remote);
  guardNewContext(browser, what, sorted.dropIn.strict === true);
  if (Object.keys(sorted.context).length) {
    const context = browser.contexts()[0];
    try {
      if (context) await applyContextOptions(context, sorted.context, { emulate: true });
    } catch (error) {
      await browser.close();
      throw error;
    }
  }
  return browser;
}

/**
 * A context's `proxy` would send its traffic around the session's proxy (and a loopback proxy
 * of this machine is unreachable from the service): dropped with the same warning as at launch.
 */
function guardNewContext(browser: Browser, what: string, strict: boolean): void {
  const newContext = browser.newContext;
  browser.newContext = function guardedNewContext(this: Browser, contextOptions = {}) {
    if (contextOptions.proxy === undefined) return newContext.call(browser, contextOptions);
    settleIgnored(
      `${what}: browser.newContext`,
      [{ option: 'newContext.proxy', why: WHY.proxy }],
      strict,
    );
    const { proxy: _proxy, ...rest } = contextOptions;
    return newContext.call(browser, rest);
  } as Browser['newContext'];
}

export const chromium: RemoteChromium = {
  name: () => 'chromium',

  launch(options = {}) {
    return Promise.resolve().then(() =>
      launch('chromium.launch', options as Record<string, unknown>),
    );
  },

  async launchPersistentContext(userDataDir, options = {}) {
    const what = 'chromium.launchPersistentContext';
    const sorted = sortLaunchOptions(what, options as Record<string, unknown>, true, userDataDir);
    const dir = mapUserDataDir(userDataDir, sorted.dropIn.userDataDir);
    const ignored = dir.kind === 'ignored' ? [...sorted.ignored, dir.ignored] : sorted.ignored;
    settleIgnored(what, ignored, sorted.dropIn.strict === true);
    const browser = await playwrightEntries.launchDropIn({
      ...(dir.kind === 'profile' ? { profile: { name: dir.name, storeCache: true } } : {}),
      ...sorted.remote,
    });
    const context = browser.contexts()[0];
    try {
      if (!context) throw new LaunchError(`${what}: the remote browser has no default context`);
      await applyContextOptions(context, sorted.context, { emulate: true });
    } catch (error) {
      await browser.close();
      throw error;
    }
    // Playwright's own close: launchRemote's patched one (wireClose) would end the session again.
    const closeContext = (Object.getPrototypeOf(context) as BrowserContext).close;
    context.close = async function close(this: BrowserContext, closeOptions?: { reason?: string }) {
      // Closing the default context closes the browser: the session's end, as browser.close().
      await endSessionOf(browser, () =>
        Promise.all([
          closeContext.call(context, closeOptions).catch(() => {}),
          closeNative(browser),
        ]),
      );
    };
    return context;
  },

  executablePath() {
    throw new LaunchError(
      'chromium.executablePath: remote sessions run the service’s Chromium; there is no local executable',
    );
  },

  launchServer() {
    return Promise.reject(
      new LaunchError(
        'chromium.launchServer: a browser server is a local process; use chromium.launch() for a remote session',
      ),
    );
  },

  connect: (async (...args: Parameters<BrowserType['connect']>) =>
    (await loadChromium('chromium.connect')).connect(...args)) as BrowserType['connect'],
  connectOverCDP: (async (...args: Parameters<BrowserType['connectOverCDP']>) =>
    (await loadChromium('chromium.connectOverCDP')).connectOverCDP(
      ...args,
    )) as BrowserType['connectOverCDP'],
};
