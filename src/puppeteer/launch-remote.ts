/**
 * Native Puppeteer browsers on remote sessions. Puppeteer's own `close()` on a connected
 * browser would kill the remote Chromium through CDP and its `[Symbol.asyncDispose]` only
 * disconnects, so both are patched on the instance (never a Proxy: `#private` fields throw
 * through one) to disconnect and DELETE the session exactly once. `disconnect()` detaches and
 * keeps the session, for reconnect flows. `browser.wsEndpoint()` returns the cdp_url: a secret.
 * The entries are launch/adapter.ts's; this file says what is Puppeteer's.
 */
import type {
  Browser,
  Connection,
  ConnectOptions,
  DownloadBehavior,
  PuppeteerNode,
  Viewport,
} from 'puppeteer-core';
import { sleep } from '../http/node-builtins.js';
import { featureFailed, type LibraryAdapter, remoteEntries } from '../launch/adapter.js';
import { geoInputOf } from '../launch/geo-config.js';
import type { LaunchRemoteOptions } from '../launch/options.js';
import { startGeo } from './geo.js';
import { loadPuppeteer } from './load.js';
import { repairOutOfProcessFrames } from './oopif-frames.js';
import { resumeAfterPuppeteer } from './page-attaches.js';
import { bridgeTransfers, connectionOf, downloadOptions } from './transfers.js';

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

/** Puppeteer's own `disconnect` (the instance's is patched to keep the session). */
function disconnectNative(browser: Browser): Promise<void> {
  return (Object.getPrototypeOf(browser) as Browser).disconnect.call(browser);
}

/** Sets `value` as an own property of the instance: Puppeteer's own stays on the prototype. */
function patch(target: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, { configurable: true, writable: true, value });
}

/** How long close() waits for the browser-level commands Puppeteer has sent to be answered. */
const ANSWERS_WAIT_MS = 2_000;
/** Each browser's wait for its unanswered browser-level commands (trackAnswers()). */
const answersOf = new WeakMap<Browser, () => Promise<void>>();

/**
 * Lets close() wait for the browser-level commands Puppeteer sent on `connection` and has no
 * answer to yet. A local close() sends `Browser.close` after them on that connection, so they
 * are answered first; a remote one ends the session over HTTP, which cut them off: Crawlee's
 * incognito pages close their context as the page closes, and its `Target.disposeBrowserContext`
 * failed ("Target closed", logged as an ERROR by Crawlee).
 */
function trackAnswers(browser: Browser, connection: Connection): void {
  const pending = new Set<Promise<unknown>>();
  const send = connection.send.bind(connection);
  patch(connection, 'send', ((...args: Parameters<Connection['send']>) => {
    const answer = send(...args);
    pending.add(answer);
    const settled = () => pending.delete(answer);
    answer.then(settled, settled);
    return answer;
  }) as Connection['send']);
  answersOf.set(browser, async () => {
    if (pending.size === 0) return;
    await Promise.race([
      Promise.allSettled(pending),
      sleep(ANSWERS_WAIT_MS, undefined, { ref: false }),
    ]);
  });
}

export const puppeteerAdapter: LibraryAdapter<
  RemoteBrowser,
  PuppeteerRemoteOptions,
  PuppeteerNode
> = {
  library: 'puppeteer',
  holdNewPages: true,
  localOptionsHint:
    "launchRemote takes only its own options; a local launch's options go to the drop-in puppeteer.launch(), see https://github.com/remote-browser/remote-browser/blob/main/docs/launch.md",
  load: (what) => loadPuppeteer(what),
  connect: async (puppeteer, cdpUrl, options) =>
    (await puppeteer.connect({
      browserWSEndpoint: cdpUrl,
      defaultViewport: options.defaultViewport === undefined ? null : options.defaultViewport,
      ...(options.protocolTimeout !== undefined
        ? { protocolTimeout: options.protocolTimeout }
        : {}),
      ...(options.slowMo !== undefined ? { slowMo: options.slowMo } : {}),
      ...(options.targetFilter !== undefined ? { targetFilter: options.targetFilter } : {}),
      ...(options.acceptInsecureCerts !== undefined
        ? { acceptInsecureCerts: options.acceptInsecureCerts }
        : {}),
    })) as RemoteBrowser,
  downloads: (options) => downloadOptions(options.downloadBehavior, options.maxDownloadBytes),
  async startFeatures(browser, features, opened, options, what) {
    // Puppeteer's own connection, looked up once for the three features that listen on it.
    const connection = connectionOf(browser);
    connection.then((found) => trackAnswers(browser, found)).catch(() => {});
    await Promise.all([
      // A popup's out-of-process iframes, which Puppeteer can leave without a context.
      repairOutOfProcessFrames(browser),
      bridgeTransfers(connection, features.downloads).catch(
        featureFailed(what, 'uploads and downloads could not be bridged'),
      ),
      startGeo(browser, connection, features.open, geoInputOf(opened, options)).catch(
        featureFailed(what, 'geo overrides could not be applied'),
      ),
      // A held new page starts once Puppeteer has its own session of it (geo's overrides on it).
      resumeAfterPuppeteer(browser, connection, features).catch(
        featureFailed(what, 'new pages could not be held for the WebSocket bridge'),
      ),
    ]);
  },
  disconnect: (browser) => disconnectNative(browser),
  isConnected: (browser) => browser.connected,
  onDisconnect: (browser, listener) => void browser.once('disconnected', listener),
  onActivity(browser, touch) {
    // Targets created and navigated.
    browser.on('targetcreated', touch);
    browser.on('targetchanged', touch);
  },
  wireClose(browser, end) {
    // Commands already sent are answered first, as on a local close().
    const close = async () => {
      await answersOf.get(browser)?.();
      return end(() => (browser.connected ? disconnectNative(browser) : Promise.resolve()));
    };
    patch(browser, 'close', close);
    patch(browser, Symbol.asyncDispose, close);
    // Detaches and leaves the session running: the user's now.
    patch(browser, 'disconnect', () => end(() => disconnectNative(browser), { keep: true }));
  },
};

/** The entries over this adapter; the drop-in and the pool call them too. */
export const puppeteerEntries = remoteEntries(puppeteerAdapter);

/**
 * Creates a remote session and returns the native Puppeteer `Browser` connected to it. Every
 * option is checked first: a wrong one is a RequestValidationError, and nothing is created.
 */
export function launchRemote(options: PuppeteerRemoteOptions = {}): Promise<RemoteBrowser> {
  return puppeteerEntries.launchRemote(options);
}

/** Connects to an existing running session by id. close() deletes it unless `keepSession`. */
export function connectRemote(
  sessionId: string,
  options: PuppeteerRemoteOptions = {},
): Promise<RemoteBrowser> {
  return puppeteerEntries.connectRemote(sessionId, options);
}
