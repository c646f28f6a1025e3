/**
 * A drop-in `chromium`: `import { chromium } from 'remote-browser/playwright'` instead of
 * 'playwright-core', and `launch()` / `launchPersistentContext()` run on remote sessions.
 * Options that only make sense for a local binary are a clear error, never silently dropped;
 * the few that are harmless are documented no-ops.
 */
import type { Browser, BrowserContext, BrowserType, LaunchOptions } from 'playwright-core';
import { LaunchError } from '../launch/errors.js';
import { launchRemote, type PlaywrightRemoteOptions } from './launch-remote.js';
import { loadChromium } from './load.js';

/** Local-binary options that cannot apply to a remote browser: an error names them. */
const UNSUPPORTED = [
  'executablePath',
  'channel',
  'args',
  'ignoreDefaultArgs',
  'chromiumSandbox',
  'devtools',
  'env',
  'proxy',
  'firefoxUserPrefs',
];
/**
 * Harmless no-ops: `headless` (there is no local window; watch with the live view),
 * `handleSIGINT/SIGTERM/SIGHUP` (no local process: use `installExitHooks()`), `downloadsPath`,
 * `tracesDir`, `artifactsDir` (Playwright keeps artifacts on this side anyway), `logger`.
 */
const NO_OPS = [
  'headless',
  'handleSIGINT',
  'handleSIGTERM',
  'handleSIGHUP',
  'downloadsPath',
  'tracesDir',
  'artifactsDir',
  'logger',
];

export type RemoteLaunchOptions = LaunchOptions & {
  /** Where and how the remote session runs (targeting, profile, preflight, recording...). */
  remote?: PlaywrightRemoteOptions;
};

function splitLaunchOptions(
  options: Record<string, unknown>,
  what: string,
): PlaywrightRemoteOptions {
  const { remote, timeout, slowMo, ...rest } = options as RemoteLaunchOptions &
    Record<string, unknown>;
  const bad = Object.keys(rest).filter((k) => UNSUPPORTED.includes(k) && rest[k] !== undefined);
  if (bad.length) {
    throw new LaunchError(
      `${what}: ${bad.map((k) => `\`${k}\``).join(', ')} cannot apply to a remote browser (the service runs its own Chromium through your proxy). Remove ${bad.length > 1 ? 'them' : 'it'}; set targeting and proxy options under \`remote\`.`,
    );
  }
  for (const key of NO_OPS) delete rest[key];
  return {
    ...(remote ?? {}),
    ...(timeout !== undefined && remote?.timeout === undefined ? { timeout } : {}),
    ...(slowMo !== undefined ? { slowMo } : {}),
  };
}

/** Context options that can be applied to the remote default context after the fact. */
async function applyContextOptions(
  context: BrowserContext,
  options: Record<string, unknown>,
  what: string,
): Promise<void> {
  const { viewport, extraHTTPHeaders, geolocation, permissions, offline, ...rest } = options as {
    viewport?: { width: number; height: number } | null;
    extraHTTPHeaders?: Record<string, string>;
    geolocation?: { latitude: number; longitude: number; accuracy?: number };
    permissions?: string[];
    offline?: boolean;
  } & Record<string, unknown>;
  const unsupported = Object.keys(rest).filter((k) => rest[k] !== undefined);
  if (unsupported.length) {
    throw new LaunchError(
      `${what}: ${unsupported.map((k) => `\`${k}\``).join(', ')} cannot be applied to a remote profile's existing context. Use \`chromium.launch()\` and \`browser.newContext({...})\` for them (a new context does not carry the profile's cookies).`,
    );
  }
  if (extraHTTPHeaders) await context.setExtraHTTPHeaders(extraHTTPHeaders);
  if (geolocation) await context.setGeolocation(geolocation);
  if (permissions) await context.grantPermissions(permissions);
  if (offline !== undefined) await context.setOffline(offline);
  if (viewport) {
    for (const page of context.pages()) await page.setViewportSize(viewport);
    context.on('page', (page) => void page.setViewportSize(viewport).catch(() => {}));
  }
}

export interface RemoteChromium {
  name(): 'chromium';
  /** Creates a remote session and returns Playwright's native `Browser` on it. */
  launch(options?: RemoteLaunchOptions): Promise<Browser>;
  /**
   * A `BrowserContext` backed by the saved profile `profileName` (created on first use with
   * `store_cache`), so cookies and storage survive between runs. Closing the context deletes
   * the session.
   */
  launchPersistentContext(
    profileName: string,
    options?: RemoteLaunchOptions & Record<string, unknown>,
  ): Promise<BrowserContext>;
  /** playwright-core's own `connect`, unchanged. */
  connect: BrowserType['connect'];
  /** playwright-core's own `connectOverCDP`, unchanged (no session management). */
  connectOverCDP: BrowserType['connectOverCDP'];
}

export const chromium: RemoteChromium = {
  name: () => 'chromium',

  launch(options = {}) {
    return Promise.resolve().then(() =>
      launchRemote(splitLaunchOptions(options as Record<string, unknown>, 'chromium.launch')),
    );
  },

  async launchPersistentContext(profileName, options = {}) {
    const what = 'chromium.launchPersistentContext';
    if (typeof profileName !== 'string' || profileName.trim() === '' || profileName.includes('/')) {
      throw new LaunchError(
        `${what}: the first argument is the saved profile's name on the service (a user-data dir path cannot apply remotely)`,
      );
    }
    const { remote, timeout, slowMo, ...rest } = options as RemoteLaunchOptions &
      Record<string, unknown>;
    const launchOnly: Record<string, unknown> = { remote, timeout, slowMo };
    const contextOptions: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(rest)) {
      if (UNSUPPORTED.includes(k) || NO_OPS.includes(k)) launchOnly[k] = v;
      else contextOptions[k] = v;
    }
    const remoteOptions = splitLaunchOptions(launchOnly, what);
    const browser = await launchRemote({
      profile: { name: profileName, storeCache: true },
      ...remoteOptions,
    });
    const context = browser.contexts()[0];
    if (!context) {
      await browser.close();
      throw new LaunchError(`${what}: the remote browser has no default context`);
    }
    try {
      await applyContextOptions(context, contextOptions, what);
    } catch (error) {
      await browser.close();
      throw error;
    }
    const closeContext = context.close;
    context.close = async function close(this: BrowserContext, closeOptions?: { reason?: string }) {
      try {
        await closeContext.call(context, closeOptions).catch(() => {});
      } finally {
        await browser.close();
      }
    };
    return context;
  },

  connect: (async (...args: Parameters<BrowserType['connect']>) =>
    (await loadChromium('chromium.connect')).connect(...args)) as BrowserType['connect'],
  connectOverCDP: (async (...args: Parameters<BrowserType['connectOverCDP']>) =>
    (await loadChromium('chromium.connectOverCDP')).connectOverCDP(
      ...args,
    )) as BrowserType['connectOverCDP'],
};
