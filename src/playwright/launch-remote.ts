/**
 * Native Playwright browsers on remote sessions. The returned object is playwright-core's own
 * `Browser`, connected over CDP; only its `close` is patched on the instance (never a Proxy:
 * Playwright hands out the raw object through `context.browser()`), and `'disconnected'` is
 * hooked, so the session is deleted exactly once however the browser goes away.
 */
import type { Browser, BrowserContext, BrowserType } from 'playwright-core';
import { RemoteBrowserError } from '../http/errors.js';
import { register } from '../launch/browser-registry.js';
import { sessionConfigOf } from '../launch/geo-config.js';
import {
  adoptSession,
  connectWithin,
  launchReusing,
  type OpenedSession,
  openSession,
} from '../launch/open-session.js';
import { LAUNCH_SCHEMAS } from '../launch/option-schemas.js';
import type { LaunchRemoteOptions } from '../launch/options.js';
import { parseEntry } from '../launch/parse-options.js';
import { settleBoth } from '../launch/settle-both.js';
import { preloadGeo } from '../remote-cdp/geo-resolve.js';
import { openRemoteFeatures } from '../remote-cdp/remote-features.js';
import { downloadOptions, startDownloads } from './downloads.js';
import { type ExtraContextsOption, guardExtraContexts } from './extra-contexts.js';
import { type PlaywrightGeoInput, startGeo } from './geo.js';
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

/** Where an unknown key of launchRemote() most likely came from. */
const LOCAL_OPTIONS_HINT =
  "launchRemote takes only its own options; a local launch's options go to the drop-in chromium.launch(), see https://github.com/remote-browser/remote-browser/blob/main/docs/launch.md";

/**
 * Creates a remote session and returns the native Playwright `Browser` connected to it. Every
 * option is checked first: a wrong one is a RequestValidationError, and nothing is created.
 */
export async function launchRemote(options: PlaywrightRemoteOptions = {}): Promise<Browser> {
  parseEntry('launchRemote', LAUNCH_SCHEMAS.playwrightLaunch, options, {
    unknownKeyHint: LOCAL_OPTIONS_HINT,
  });
  // The peer before the session: a session for a library that cannot load is billed for nothing.
  const browserType = options.browserType ?? (await loadChromium('launchRemote'));
  const opened = await openSession(options, 'launchRemote');
  return connect(opened, browserType, options, 'launchRemote');
}

/**
 * The drop-ins' launchRemote(): re-attaches a session a drop-in browser of this process dropped
 * (same account and session options) before it creates one (`launchReusing`).
 */
export async function launchDropIn(options: PlaywrightRemoteOptions = {}): Promise<Browser> {
  parseEntry('launchRemote', LAUNCH_SCHEMAS.playwrightLaunch, options, {
    unknownKeyHint: LOCAL_OPTIONS_HINT,
  });
  const browserType = options.browserType ?? (await loadChromium('launchRemote'));
  return launchReusing(options, 'launchRemote', (opened) =>
    connect(opened, browserType, options, 'launchRemote'),
  );
}

/** Connects to an existing running session by id. close() deletes it unless `keepSession`. */
export async function connectRemote(
  sessionId: string,
  options: PlaywrightRemoteOptions = {},
): Promise<Browser> {
  parseEntry(
    'connectRemote',
    LAUNCH_SCHEMAS.playwrightConnect,
    { sessionId, options },
    { relativeTo: 'options' },
  );
  const browserType = options.browserType ?? (await loadChromium('connectRemote'));
  const opened = await adoptSession(sessionId, options, 'connectRemote');
  return connect(opened, browserType, options, 'connectRemote');
}

async function connect(
  opened: OpenedSession,
  browserType: BrowserType,
  options: PlaywrightRemoteOptions,
  what: string,
): Promise<Browser> {
  let browser: Browser;
  preloadGeo(options.geo);
  try {
    // Connected means the remote features run too: a cut while they start is a dropped connect,
    // tried again on the same session (connectWithin).
    browser = await connectWithin(
      opened,
      what,
      async (timeout) => {
        // The remote features' own connection opens alongside Playwright's, not after it
        // (remote-cdp/remote-features.ts): their setup overlaps the connect.
        const features = openRemoteFeatures(opened.cdpUrl(), {
          ...(options.exposeNetwork !== undefined ? { exposeNetwork: options.exposeNetwork } : {}),
          downloads: downloadOptions(options.downloadsPath, options.maxDownloadBytes),
        });
        let connected: Browser;
        try {
          connected = await browserType.connectOverCDP(opened.cdpUrl(), {
            timeout,
            ...(options.slowMo !== undefined ? { slowMo: options.slowMo } : {}),
            ...(options.downloadsPath !== undefined ? { artifactsDir: options.downloadsPath } : {}),
          });
        } catch (error) {
          await features.close();
          throw error;
        }
        try {
          features.adopt(connected);
          await Promise.all([
            features.ready(),
            startDownloads(connected, features.downloads, options.downloadsPath).catch(
              (error: unknown) => {
                throw new RemoteBrowserError(
                  `${what}: downloads could not be bridged: ${(error as Error).message}`,
                  { cause: error },
                );
              },
            ),
            startGeo(connected, features.open, geoInput(opened, options)).catch(
              (error: unknown) => {
                throw new RemoteBrowserError(
                  `${what}: geo overrides could not be applied: ${(error as Error).message}`,
                  { cause: error },
                );
              },
            ),
          ]);
        } catch (error) {
          await connected.close().catch(() => {});
          await features.close();
          throw error;
        }
        return connected;
      },
      (late) => late.close(),
    );
  } catch (error) {
    throw await opened.abandon(error);
  }
  opened.connected();
  attach(browser, opened);
  guardExtraContexts(browser, options.extraContexts);
  return browser;
}

function geoInput(opened: OpenedSession, options: PlaywrightRemoteOptions): PlaywrightGeoInput {
  return {
    config: sessionConfigOf(opened, options),
    option: options.geo,
    ...(opened.profile ? { profile: opened.profile } : {}),
  };
}

function attach(browser: Browser, opened: OpenedSession): void {
  register(browser, opened);
  const originalClose = browser.close;
  // An own property shadows the prototype's; asyncDispose and context.browser().close() reach it too.
  browser.close = async function close(this: Browser, closeOptions?: { reason?: string }) {
    // The DELETE leaves alongside the disconnect, not after it: ending the session drops the
    // socket anyway, so waiting for the disconnect first only adds its round trip. The finish
    // starts first, so the disconnect it causes is not taken for a drop; a drop-in's browser
    // closed after a drop leaves its session kept for the next launch (opened.close()).
    const finished = opened.close();
    await settleBoth(originalClose.call(browser, closeOptions), finished);
  };
  // Without close(): a drop, not a close (the session may be kept for a re-attach).
  browser.once('disconnected', () => opened.dropped());
  // Traffic the idle-timeout inference can see: requests and new pages of every context.
  const watch = (context: BrowserContext) => {
    const touch = () => opened.touch();
    context.on('request', touch);
    context.on('page', touch);
  };
  for (const context of browser.contexts()) watch(context);
}
