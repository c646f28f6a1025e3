/**
 * launchRemote(), connectRemote(), the drop-ins' launch and createSessionPool(), written once
 * for both libraries. A library adapter (src/playwright/adapter.ts, src/puppeteer/adapter.ts)
 * says only what differs: how to connect its native browser, start the remote features on it,
 * disconnect it, hear it disconnect, and patch its close. Everything about the session (the
 * order of a close and its disconnect, a drop, a keep) is the session's (open-session.ts).
 */
import { RemoteBrowserError } from '../http/errors.js';
import type { RemoteDownloadsOptions } from '../remote-cdp/downloads.js';
import { preloadGeo } from '../remote-cdp/geo-resolve.js';
import { openRemoteFeatures, type RemoteFeatures } from '../remote-cdp/remote-features.js';
import { adoptSession, launchReusing } from './attach-session.js';
import { keptSessionOf, register, sessionRunning, wasDropped } from './browser-registry.js';
import { connectWithin, disposeLate } from './connect-within.js';
import { type OpenedSession, openSession } from './open-session.js';
import { LAUNCH_SCHEMAS } from './option-schemas.js';
import type { LaunchRemoteOptions } from './options.js';
import { parseEntry } from './parse-options.js';
import {
  checkPoolOptions,
  type RemoteSessionPool,
  type SessionPoolOptions,
} from './pool-options.js';
import { SessionPool } from './session-pool.js';

/**
 * The session's end, as an adapter's patched close()/disconnect() calls it: the session starts
 * ending (deleting it, or keeping it with `keep`) before `disconnect` runs, so the disconnect it
 * causes is not taken for a drop; both are waited for (`OpenedSession.end`, also for
 * `disconnectFirst`).
 */
export type EndSession = (
  disconnect: () => Promise<unknown>,
  options?: { keep?: boolean; disconnectFirst?: boolean },
) => Promise<void>;

/** A native browser as far as this needs it: its close() is the patched one (`wireClose`). */
export interface NativeBrowser {
  close(): Promise<void>;
  once(event: 'disconnected', listener: () => void): unknown;
}

/** What differs between Playwright and Puppeteer for a browser on a remote session. */
export interface LibraryAdapter<B extends NativeBrowser, O extends LaunchRemoteOptions, P> {
  /** Names the entries' schemas (option-schemas.ts): `${library}Launch`, `${library}Connect`. */
  readonly library: 'playwright' | 'puppeteer';
  /** Said after an unknown key of launchRemote(): where a local launch's options go. */
  readonly localOptionsHint: string;
  /**
   * Whether the features may hold each new page until the WebSocket bridge's scripts are in
   * (remote-cdp/page-hold.ts): a popup's first document bridged. Puppeteer's adapter has the
   * held page resumed once Puppeteer attached it (src/puppeteer/page-attaches.ts), so geo's
   * overrides on Puppeteer's own session of it are out before it starts.
   */
  readonly holdNewPages: boolean;
  /** Loads the library, before any session: one for a library that cannot load is billed for nothing. */
  load(what: string, options: O): Promise<P>;
  /** Connects the native browser to the session's `cdpUrl` within `timeoutMs`. */
  connect(peer: P, cdpUrl: string, options: O, timeoutMs: number): Promise<B>;
  /** The download bridge's options for the features' connection; undefined: no bridge. */
  downloads(options: O): RemoteDownloadsOptions | undefined;
  /**
   * What of the remote features needs no native browser, started on `features` alongside the
   * library's connect (Playwright's geo on the session's own tab), so it costs the launch no
   * round trip after it; rejects with the error the launch throws.
   */
  startAlongside?(
    features: RemoteFeatures,
    opened: OpenedSession,
    options: O,
    what: string,
  ): Promise<void>;
  /**
   * Starts the library's side of the remote features (the download and upload glue, geo) on a
   * connected browser whose features' connection is `features`, side by side; rejects with the
   * error the launch throws.
   */
  startFeatures(
    browser: B,
    features: RemoteFeatures,
    opened: OpenedSession,
    options: O,
    what: string,
  ): Promise<void>;
  /** Disconnects the native browser; the remote session is left alone. */
  disconnect(browser: B): Promise<void>;
  isConnected(browser: B): boolean;
  /** Calls `listener` once when the connection goes away, however it went. */
  onDisconnect(browser: B, listener: () => void): void;
  /** Calls `touch` on the traffic the idle-timeout inference can see. */
  onActivity(browser: B, touch: () => void): void;
  /** Patches the browser's own close (and dispose, disconnect) on the instance to `end`. */
  wireClose(browser: B, end: EndSession): void;
  /** Last, before the browser is handed out (Playwright's extra-context guard). */
  handOut?(browser: B, options: O): void;
}

/** The entries of one library, built from its adapter. */
export interface RemoteEntries<B extends NativeBrowser, O extends LaunchRemoteOptions> {
  launchRemote(options?: O): Promise<B>;
  connectRemote(sessionId: string, options?: O): Promise<B>;
  /**
   * The drop-ins' launchRemote(): re-attaches a session a drop-in browser of this process
   * dropped (same account and session options) before it creates one (`launchReusing`).
   */
  launchDropIn(options?: O): Promise<B>;
  createSessionPool(options?: O & SessionPoolOptions): RemoteSessionPool<B>;
}

export function remoteEntries<B extends NativeBrowser, O extends LaunchRemoteOptions, P>(
  adapter: LibraryAdapter<B, O, P>,
): RemoteEntries<B, O> {
  const parseLaunch = (options: O) =>
    parseEntry('launchRemote', LAUNCH_SCHEMAS[`${adapter.library}Launch`], options, {
      unknownKeyHint: adapter.localOptionsHint,
    });

  const entries: RemoteEntries<B, O> = {
    async launchRemote(options = {} as O) {
      parseLaunch(options);
      const peer = await adapter.load('launchRemote', options);
      const opened = await openSession(options, 'launchRemote');
      return connect(adapter, opened, peer, options, 'launchRemote');
    },

    async launchDropIn(options = {} as O) {
      parseLaunch(options);
      const peer = await adapter.load('launchRemote', options);
      return launchReusing(options, 'launchRemote', (opened) =>
        connect(adapter, opened, peer, options, 'launchRemote'),
      );
    },

    async connectRemote(sessionId, options = {} as O) {
      parseEntry(
        'connectRemote',
        LAUNCH_SCHEMAS[`${adapter.library}Connect`],
        { sessionId, options },
        { relativeTo: 'options' },
      );
      const peer = await adapter.load('connectRemote', options);
      const opened = await adoptSession(sessionId, options, 'connectRemote');
      return connect(adapter, opened, peer, options, 'connectRemote');
    },

    createSessionPool(options = {} as O & SessionPoolOptions) {
      return createPool<B, O>(options, entries.launchRemote, {
        close: (browser) => browser.close(),
        isAlive: (browser) => adapter.isConnected(browser),
        dropped: (browser) => wasDropped(browser),
        stillRunning: (browser, timeoutMs) => sessionRunning(browser, timeoutMs),
        reattach: async (browser, options) => {
          const id = await keptSessionOf(browser);
          return id === undefined ? undefined : entries.connectRemote(id, options);
        },
      });
    },
  };
  return entries;
}

async function connect<B extends NativeBrowser, O extends LaunchRemoteOptions, P>(
  adapter: LibraryAdapter<B, O, P>,
  opened: OpenedSession,
  peer: P,
  options: O,
  what: string,
): Promise<B> {
  let browser: B;
  preloadGeo(options.geo);
  try {
    // Connected means the remote features run too: a cut while they start is a dropped connect,
    // tried again on the same session (connectWithin).
    browser = await connectWithin(
      opened,
      what,
      async (timeout) => {
        // The remote features' own connection opens alongside the library's, not after it
        // (remote-cdp/remote-features.ts): their setup overlaps the connect.
        const downloads = adapter.downloads(options);
        const features = openRemoteFeatures(opened.cdpUrl(), {
          ...(options.exposeNetwork !== undefined ? { exposeNetwork: options.exposeNetwork } : {}),
          ...(downloads ? { downloads } : {}),
          holdNewPages: adapter.holdNewPages,
        });
        const alongside = adapter.startAlongside?.(features, opened, options, what);
        // Awaited below, or dropped with the features when the connect fails.
        alongside?.catch(() => {});
        const connecting = adapter.connect(peer, opened.cdpUrl(), options, timeout);
        let connected: B;
        try {
          // A cut drops both connections, and the library may miss its own socket's close:
          // Playwright's connectOverCDP does when it closes between the socket's open and the
          // start of its CDP connection (an awaited mkdtemp), then waits out the launch timeout
          // (a pool's re-attach hung so in the reconnect soak). The features' drop ends the try.
          connected = await Promise.race([connecting, features.lost]);
        } catch (error) {
          disposeLate(connecting, (late) => adapter.disconnect(late));
          await features.close();
          throw error;
        }
        try {
          features.adopt(connected);
          await Promise.all([
            features.ready(),
            alongside,
            adapter.startFeatures(connected, features, opened, options, what),
          ]);
        } catch (error) {
          await adapter.disconnect(connected).catch(() => {});
          await features.close();
          throw error;
        }
        return connected;
      },
      (late) => adapter.disconnect(late),
    );
  } catch (error) {
    // The connect's error may print the cdp_url (Playwright's call log, Puppeteer's `ws`
    // ErrorEvent): abandon() builds a clean one.
    throw await opened.abandon(error);
  }
  opened.connected();
  register(browser, opened);
  adapter.wireClose(browser, (disconnect, endOptions) => opened.end(disconnect, endOptions));
  // Without close(): a drop, not a close (the session may be kept for a re-attach).
  adapter.onDisconnect(browser, () => opened.dropped());
  adapter.onActivity(browser, () => opened.touch());
  adapter.handOut?.(browser, options);
  return browser;
}

/** A feature's setup failure, named for the launch (`launchRemote: downloads could not be bridged: ...`). */
export function featureFailed(what: string, feature: string) {
  return (error: unknown): never => {
    throw new RemoteBrowserError(`${what}: ${feature}: ${(error as Error).message}`, {
      cause: error,
    });
  };
}

/** How an adapter's browsers look to a pool; `reattach` gets the pool's launch options. */
export interface PooledBrowser<B, O> {
  close(browser: B): Promise<void>;
  isAlive(browser: B): boolean;
  dropped(browser: B): boolean;
  reattach(browser: B, options: O): Promise<B | undefined>;
  stillRunning(browser: B, timeoutMs: number): Promise<boolean>;
}

/**
 * An adapter's `createSessionPool()`: splits the pool's own options from the launch options,
 * checks them before anything is launched, and launches refills without waiting for a slot.
 */
export function createPool<B, O extends { idleTimeoutMinutes?: number | undefined }>(
  options: O & SessionPoolOptions,
  launch: (options: O & { waitForSlot: boolean }) => Promise<B>,
  browsers: PooledBrowser<B, O>,
): RemoteSessionPool<B> {
  const { size, maxWarmAgeMs, checkWarmAfterMs, budget, ...rest } = options;
  const launchOptions = rest as unknown as O;
  const checked = checkPoolOptions('createSessionPool', {
    size,
    maxWarmAgeMs,
    checkWarmAfterMs,
    idleTimeoutMinutes: launchOptions.idleTimeoutMinutes,
  });
  return new SessionPool<B>(
    {
      close: browsers.close,
      isAlive: browsers.isAlive,
      dropped: browsers.dropped,
      stillRunning: browsers.stillRunning,
      reattach: (browser) => browsers.reattach(browser, launchOptions),
      launch: (waitForSlot) => launch({ ...launchOptions, waitForSlot }),
    },
    { ...checked, budget },
  );
}
