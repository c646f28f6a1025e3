/**
 * Native Puppeteer browsers on remote sessions. Puppeteer's own `close()` on a connected
 * browser would kill the remote Chromium through CDP and its `[Symbol.asyncDispose]` only
 * disconnects, so both are patched on the instance (never a Proxy: `#private` fields throw
 * through one) to disconnect and DELETE the session exactly once. `disconnect()` detaches and
 * keeps the session, for reconnect flows. `browser.wsEndpoint()` returns the cdp_url: a secret.
 */
import type {
  Browser,
  ConnectOptions,
  DownloadBehavior,
  PuppeteerNode,
  Viewport,
} from 'puppeteer-core';
import { createDebug } from '../http/debug.js';
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
import { startGeo } from './geo.js';
import { loadPuppeteer } from './load.js';
import { repairOutOfProcessFrames } from './oopif-frames.js';
import { bridgeTransfers, downloadOptions } from './transfers.js';

const debug = createDebug('puppeteer');

export interface PuppeteerRemoteOptions extends LaunchRemoteOptions {
  /**
   * Viewport for new pages. Default: `null`, so pages keep the remote window's size (the
   * session's fingerprint) instead of Puppeteer's 800x600.
   */
  defaultViewport?: Viewport | null;
  /** Passed to `puppeteer.connect`. Default: Puppeteer's (180000). */
  protocolTimeout?: number;
  /** Passed to `puppeteer.connect`. Default: 0. */
  slowMo?: number;
  /** Passed to `puppeteer.connect`. */
  targetFilter?: ConnectOptions['targetFilter'];
  /** Passed to `puppeteer.connect`. */
  acceptInsecureCerts?: boolean;
  /**
   * Puppeteer's `downloadBehavior`, brought to the client: with `policy` `'allow'` or
   * `'allowAndName'`, every download of the remote browser lands in `downloadPath` on the client
   * (by its suggested name, or by its guid), its bytes streamed over CDP; `'deny'` refuses
   * downloads. Default: none (the remote browser's own behavior; nothing reaches the client).
   */
  downloadBehavior?: DownloadBehavior;
}

/**
 * Puppeteer's `Browser` on a remote session. puppeteer-core's types keep its
 * `Symbol.asyncDispose` internal, so `await using browser = await launchRemote()` would not
 * compile; the method is there at runtime (patched to disconnect and delete the session).
 */
export type RemoteBrowser = Browser & AsyncDisposable;

/** Where an unknown key of launchRemote() most likely came from. */
const LOCAL_OPTIONS_HINT =
  "launchRemote takes only its own options; a local launch's options go to the drop-in puppeteer.launch(), see https://github.com/remote-browser/remote-browser/blob/main/docs/launch.md";

/**
 * Creates a remote session and returns the native Puppeteer `Browser` connected to it. Every
 * option is checked first: a wrong one is a RequestValidationError, and nothing is created.
 */
export async function launchRemote(options: PuppeteerRemoteOptions = {}): Promise<RemoteBrowser> {
  parseEntry('launchRemote', LAUNCH_SCHEMAS.puppeteerLaunch, options, {
    unknownKeyHint: LOCAL_OPTIONS_HINT,
  });
  // The peer before the session: a session for a library that cannot load is billed for nothing.
  const puppeteer = await loadPuppeteer('launchRemote');
  const opened = await openSession(options, 'launchRemote');
  return connect(opened, puppeteer, options, 'launchRemote');
}

/**
 * The drop-in's launchRemote(): re-attaches a session a drop-in browser of this process dropped
 * (same account and session options) before it creates one (`launchReusing`).
 */
export async function launchDropIn(options: PuppeteerRemoteOptions = {}): Promise<RemoteBrowser> {
  parseEntry('launchRemote', LAUNCH_SCHEMAS.puppeteerLaunch, options, {
    unknownKeyHint: LOCAL_OPTIONS_HINT,
  });
  const puppeteer = await loadPuppeteer('launchRemote');
  return launchReusing(options, 'launchRemote', (opened) =>
    connect(opened, puppeteer, options, 'launchRemote'),
  );
}

/** Connects to an existing running session by id. close() deletes it unless `keepSession`. */
export async function connectRemote(
  sessionId: string,
  options: PuppeteerRemoteOptions = {},
): Promise<RemoteBrowser> {
  parseEntry(
    'connectRemote',
    LAUNCH_SCHEMAS.puppeteerConnect,
    { sessionId, options },
    {
      relativeTo: 'options',
    },
  );
  const puppeteer = await loadPuppeteer('connectRemote');
  const opened = await adoptSession(sessionId, options, 'connectRemote');
  return connect(opened, puppeteer, options, 'connectRemote');
}

async function connect(
  opened: OpenedSession,
  puppeteer: PuppeteerNode,
  options: PuppeteerRemoteOptions,
  what: string,
): Promise<RemoteBrowser> {
  let browser: Browser;
  preloadGeo(options.geo);
  try {
    // Connected means the remote features run too: a cut while they start is a dropped connect,
    // tried again on the same session (connectWithin).
    browser = await connectWithin(
      opened,
      what,
      async () => {
        // The remote features' own connection opens alongside Puppeteer's, not after it
        // (remote-cdp/remote-features.ts): their setup overlaps the connect.
        const downloads = downloadOptions(options.downloadBehavior, options.maxDownloadBytes);
        const features = openRemoteFeatures(opened.cdpUrl(), {
          ...(options.exposeNetwork !== undefined ? { exposeNetwork: options.exposeNetwork } : {}),
          ...(downloads ? { downloads } : {}),
        });
        let connected: Browser;
        try {
          connected = await puppeteer.connect({
            browserWSEndpoint: opened.cdpUrl(),
            defaultViewport: options.defaultViewport === undefined ? null : options.defaultViewport,
            ...(options.protocolTimeout !== undefined
              ? { protocolTimeout: options.protocolTimeout }
              : {}),
            ...(options.slowMo !== undefined ? { slowMo: options.slowMo } : {}),
            ...(options.targetFilter !== undefined ? { targetFilter: options.targetFilter } : {}),
            ...(options.acceptInsecureCerts !== undefined
              ? { acceptInsecureCerts: options.acceptInsecureCerts }
              : {}),
          });
        } catch (error) {
          await features.close();
          throw error;
        }
        try {
          features.adopt(connected);
          await Promise.all([
            features.ready(),
            // A popup's out-of-process iframes, which Puppeteer can leave without a context.
            repairOutOfProcessFrames(connected),
            bridgeTransfers(connected, features.downloads).catch((error: unknown) => {
              throw new RemoteBrowserError(
                `${what}: uploads and downloads could not be bridged: ${(error as Error).message}`,
                { cause: error },
              );
            }),
            startGeo(connected, features.open, {
              config: sessionConfigOf(opened, options),
              option: options.geo,
              ...(opened.profile ? { profile: opened.profile } : {}),
            }).catch((error: unknown) => {
              throw new RemoteBrowserError(
                `${what}: geo overrides could not be applied: ${(error as Error).message}`,
                { cause: error },
              );
            }),
          ]);
        } catch (error) {
          await connected.disconnect().catch(() => {});
          await features.close();
          throw error;
        }
        return connected;
      },
      (late) => late.disconnect(),
    );
  } catch (error) {
    // Puppeteer rejects with a `ws` ErrorEvent that prints the URL: abandon() builds a clean Error.
    throw await opened.abandon(error);
  }
  opened.connected();
  const attached = attach(browser, opened);
  return attached;
}

function attach(browser: Browser, opened: OpenedSession): RemoteBrowser {
  register(browser, opened);
  const originalDisconnect = browser.disconnect;
  let keep = false;

  // The DELETE leaves alongside the disconnect, not after it (ending the session drops the
  // socket anyway).
  const closeAndDelete = () => {
    // close() first: the disconnect it causes is then not taken for a drop. A drop-in's browser
    // closed after a drop leaves its session kept for the next launch.
    const finished = opened.close();
    return settleBoth(
      browser.connected ? originalDisconnect.call(browser) : Promise.resolve(),
      finished,
    );
  };
  Object.defineProperty(browser, 'close', {
    configurable: true,
    writable: true,
    value: closeAndDelete,
  });
  Object.defineProperty(browser, Symbol.asyncDispose, {
    configurable: true,
    writable: true,
    value: closeAndDelete,
  });
  Object.defineProperty(browser, 'disconnect', {
    configurable: true,
    writable: true,
    value: async () => {
      keep = true;
      await originalDisconnect.call(browser);
      await opened.finish(true);
    },
  });
  browser.once('disconnected', () => {
    if (!keep) return opened.dropped();
    opened
      .finish(true)
      .catch((error: unknown) =>
        debug(`keeping session ${opened.info.id} failed: ${(error as Error).message}`),
      );
  });
  // Traffic the idle-timeout inference can see: targets created and navigated.
  const touch = () => opened.touch();
  browser.on('targetcreated', touch);
  browser.on('targetchanged', touch);
  return browser as RemoteBrowser;
}
