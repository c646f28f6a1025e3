/**
 * Native Playwright browsers on remote sessions. The returned object is playwright-core's own
 * `Browser`, connected over CDP; only its `close` is patched on the instance (never a Proxy:
 * Playwright hands out the raw object through `context.browser()`), and `'disconnected'` is
 * hooked, so the session is deleted exactly once however the browser goes away. The entries
 * are launch/adapter.ts's; this file says what is Playwright's.
 */
import type { Browser, BrowserContext, BrowserType } from 'playwright-core';
import { featureFailed, type LibraryAdapter, remoteEntries } from '../launch/adapter.js';
import { geoInputOf } from '../launch/geo-config.js';
import type { LaunchRemoteOptions } from '../launch/options.js';
import { resumeAfterLibrary } from '../remote-cdp/page-hold.js';
import { downloadOptions, startDownloads } from './downloads.js';
import { type ExtraContextsOption, guardExtraContexts } from './extra-contexts.js';
import { startDefaultContextGeo, startGeo } from './geo.js';
import { loadChromium } from './load.js';

export interface PlaywrightRemoteOptions extends LaunchRemoteOptions, ExtraContextsOption {
  /**
   * The BrowserType to connect with, e.g. the test runner's own `playwright.chromium`, so no
   * second copy of Playwright is used. Default: `chromium` from playwright-core.
   */
  browserType?: BrowserType;
  /** Passed to `connectOverCDP`: slows every operation by this many ms. Default: 0. */
  slowMo?: number;
  /**
   * A client folder where every download of the remote browser also lands, named by its guid
   * (as `downloadsPath` of a local launch). Default: none; `Download.saveAs()`/`path()` work
   * either way (docs/remote.md).
   */
  downloadsPath?: string;
}

/** Playwright's `Browser.close`, the library's own (the instance's is patched). */
export function closeNative(browser: Browser, options?: { reason?: string }): Promise<void> {
  return (Object.getPrototypeOf(browser) as Browser).close.call(browser, options);
}

export const playwrightAdapter: LibraryAdapter<Browser, PlaywrightRemoteOptions, BrowserType> = {
  library: 'playwright',
  holdNewPages: true,
  localOptionsHint:
    "launchRemote takes only its own options; a local launch's options go to the drop-in chromium.launch(), see https://github.com/remote-browser/remote-browser/blob/main/docs/launch.md",
  load: async (what, options) => options.browserType ?? (await loadChromium(what)),
  connect: (browserType, cdpUrl, options, timeout) =>
    browserType.connectOverCDP(cdpUrl, {
      timeout,
      ...(options.slowMo !== undefined ? { slowMo: options.slowMo } : {}),
      ...(options.downloadsPath !== undefined ? { artifactsDir: options.downloadsPath } : {}),
    }),
  downloads: (options) => downloadOptions(options.downloadsPath, options.maxDownloadBytes),
  startAlongside: (features, opened, options, what) =>
    startDefaultContextGeo(features.cdp, geoInputOf(opened, options)).catch(
      featureFailed(what, 'geo overrides could not be applied'),
    ),
  async startFeatures(browser, features, opened, options, what) {
    await Promise.all([
      startDownloads(browser, features.downloads, options.downloadsPath).catch(
        featureFailed(what, 'downloads could not be bridged'),
      ),
      startGeo(browser, geoInputOf(opened, options)).catch(
        featureFailed(what, 'geo overrides could not be applied'),
      ),
      // Playwright resumes the new pages it holds once its own set-up of them is sent.
      features.bridge.then((bridge) => bridge?.resumeHeldPagesAfter(resumeAfterLibrary)),
    ]);
  },
  disconnect: (browser) => closeNative(browser),
  isConnected: (browser) => browser.isConnected(),
  onDisconnect: (browser, listener) => void browser.once('disconnected', listener),
  onActivity(browser, touch) {
    // Requests and new pages of every context.
    const watch = (context: BrowserContext) => {
      context.on('request', touch);
      context.on('page', touch);
    };
    for (const context of browser.contexts()) watch(context);
  },
  wireClose(browser, end) {
    // An own property shadows the prototype's; asyncDispose and context.browser().close() reach it too.
    browser.close = async function close(this: Browser, closeOptions?: { reason?: string }) {
      await end(() => closeNative(browser, closeOptions));
    };
    // Closing the default context of a CDP browser disconnects it: the user's close, not a
    // dropped connection (no warning, no session kept running), so the session ends with it.
    // Its DELETE waits for the close, which may still use the browser (Playwright Test's hooks
    // take a failed test's screenshot and trace there).
    const context = browser.contexts()[0];
    if (context) {
      const closeContext = context.close;
      context.close = async function close(this: BrowserContext, options?: { reason?: string }) {
        await end(() => closeContext.call(context, options), { disconnectFirst: true });
      };
    }
  },
  handOut: (browser, options) => guardExtraContexts(browser, options.extraContexts),
};

/** The entries over this adapter; the drop-in and the pool call them too. */
export const playwrightEntries = remoteEntries(playwrightAdapter);

/**
 * Creates a remote session and returns the native Playwright `Browser` connected to it. Every
 * option is checked first: a wrong one is a RequestValidationError, and nothing is created.
 */
export function launchRemote(options: PlaywrightRemoteOptions = {}): Promise<Browser> {
  return playwrightEntries.launchRemote(options);
}

/** Connects to an existing running session by id. close() deletes it unless `keepSession`. */
export function connectRemote(
  sessionId: string,
  options: PlaywrightRemoteOptions = {},
): Promise<Browser> {
  return playwrightEntries.connectRemote(sessionId, options);
}
