/**
 * How the remote-CDP features start. Two ways in:
 *
 * - `openRemoteFeatures(cdpUrl, options)`: the adapters' one call (launchRemote, connectRemote,
 *   the drop-ins). It opens the features' OWN CDP connection to the session's `cdp_url`
 *   (cdp-connection.ts) and starts the features on it at once, alongside the library's own
 *   `connectOverCDP`/`puppeteer.connect`, not after it: the socket's opening and the one setup
 *   round trip (target discovery, the tunnel's `Fetch.enable`, the download bridge's
 *   `Browser.setDownloadBehavior`, and the WebSocket bridge's scripts on the session's own tab)
 *   overlap the library's connect, which takes longer, so a launch pays no round trip for them.
 *   Measured (issue 34): on the library's own browser-level session they cost two serial round
 *   trips after the connect (opening the session, then the setup batch). `adopt(browser)` then
 *   ties them to the connected native browser: every feature of that browser shares the same
 *   RemoteCdp (remoteCdpFor) and they end, with their connection, when it disconnects.
 * - `startRemoteFeatures(browser, open, options)`: the same features on a channel the caller
 *   already has (the CLI on its own CdpConnection).
 *
 * A network feature that is off pauses nothing: with `exposeNetwork: ''` no request goes
 * through the client. The download bridge pauses document responses only while a download can
 * be received (downloads.ts).
 */
import { createDebug } from '../http/debug.js';
import type { CdpChannel } from './cdp-channel.js';
import type { CdpConnection } from './cdp-connection.js';
import type { RemoteDownloads, RemoteDownloadsOptions } from './downloads.js';
import { DEFAULT_EXPOSE_NETWORK, type ExposedHosts, parseExposeNetwork } from './host-patterns.js';
import { RemoteCdp } from './remote-cdp.js';
import type { WebSocketBridge } from './websocket-bridge.js';

const debug = createDebug('remote-cdp');

export interface RemoteFeatureOptions {
  /** See `ConnectOptions.exposeNetwork`. Default: `'<loopback>'`. */
  exposeNetwork?: string;
  /** Hold each new page until the bridge's scripts are in (websocket-bridge.ts). Default: false. */
  holdNewPages?: boolean;
}

/** The native browser as far as this needs it (Playwright's and Puppeteer's both fit). */
export interface DisconnectingBrowser {
  once(event: 'disconnected', listener: () => void): unknown;
}

export async function startRemoteFeatures(
  browser: DisconnectingBrowser,
  open: () => Promise<CdpChannel>,
  options: RemoteFeatureOptions,
): Promise<void> {
  const hosts = parseExposeNetwork(options.exposeNetwork ?? DEFAULT_EXPOSE_NETWORK);
  if (hosts.empty) return;
  const cdp = await remoteCdpFor(browser, open);
  const { stop } = await startNetworkFeatures(cdp, hosts, options.holdNewPages ?? false);
  browser.once('disconnected', () => {
    void stop().finally(() => cdp.close());
  });
  // Every feature's setup went out without waiting for another's: one round trip for all.
  await cdp.ready();
}

/**
 * The exposeNetwork features (tunnel and WebSocket bridge) on `cdp` for `hosts` (not empty,
 * parsed once by the caller for both); returns the bridge and how to stop both.
 */
async function startNetworkFeatures(
  cdp: RemoteCdp,
  hosts: ExposedHosts,
  holdNewPages: boolean,
): Promise<{ stop: () => Promise<void>; bridge: WebSocketBridge }> {
  // The tunnel and the bridge (undici, ws, zod, node:dns/http/crypto) load with the first
  // browser that starts them, alongside its connection's opening: importing an adapter loads
  // none of them (test/package/entry-isolation.test.ts).
  const [{ startWebSocketBridge }, { startNetworkTunnel }] = await Promise.all([
    import('./websocket-bridge.js'),
    import('./network-tunnel.js'),
  ]);
  // The order the features see a paused request in is INTERCEPT_ORDER's, not this one.
  const [bridge, stopTunnel] = await Promise.all([
    startWebSocketBridge(cdp, hosts, holdNewPages),
    startNetworkTunnel(cdp, hosts),
  ]);
  const stop = async () => {
    await Promise.all([bridge.stop(), stopTunnel()]);
  };
  return { stop, bridge };
}

export interface OpenFeaturesOptions extends RemoteFeatureOptions {
  /** The download bridge's options (downloads.ts); none: downloads are not brought over. */
  downloads?: RemoteDownloadsOptions;
}

/** The remote features of one connect (openRemoteFeatures()). */
export interface RemoteFeatures {
  /** The download bridge, when `downloads` was asked for. */
  readonly downloads: Promise<RemoteDownloads | undefined>;
  /** The WebSocket bridge, when a host is exposed; undefined too when it failed (ready() says). */
  readonly bridge: Promise<WebSocketBridge | undefined>;
  /** The features' RemoteCdp, usable before the browser adopts it (a feature started alongside the connect). */
  readonly cdp: Promise<RemoteCdp>;
  /**
   * remoteCdpFor's `open` for the adopted browser. adopt() registered the features' RemoteCdp,
   * so remoteCdpFor() calls it only when that failed to open: it rejects with the failure.
   */
  readonly open: () => Promise<CdpChannel>;
  /**
   * Resolves once every feature's setup is answered (the WebSocket bridge's scripts on the tabs
   * there are included); rejects when the connection could not open or a setup failed.
   */
  ready(): Promise<void>;
  /**
   * Ties the features to the connected native browser: remoteCdpFor(browser) is their
   * RemoteCdp, and they end, with their connection, when the browser disconnects.
   */
  adopt(browser: DisconnectingBrowser & object): void;
  /**
   * Rejects when the features' connection fails to open or drops before adopt(), and never
   * settles after it: the library's connect beside it was cut too, or its try is lost anyway
   * (a browser is handed out only with its features running).
   */
  readonly lost: Promise<never>;
  /** Ends the features and their connection (idempotent; the connect failed, or the browser went). */
  close(): Promise<void>;
}

/**
 * Opens the features' own connection to `cdpUrl` and starts them on it now (see the module
 * comment). Never throws: a failure is ready()'s rejection. `cdpUrl` carries the session's
 * access token; no error names it (cdp-connection.ts).
 */
export function openRemoteFeatures(cdpUrl: string, options: OpenFeaturesOptions): RemoteFeatures {
  const hosts = parseExposeNetwork(options.exposeNetwork ?? DEFAULT_EXPOSE_NETWORK);
  let closing: Promise<void> | undefined;
  // `ws` loads with the first launch, not with the adapter's import (entry-cost, P6).
  const connect = () =>
    import('./cdp-connection.js').then(({ CdpConnection }) => CdpConnection.open(cdpUrl));
  const connection = connect();
  /** The connection the features run on now (a reopen replaces it). */
  let current: Promise<CdpConnection> = connection;
  const channelOf = (conn: CdpConnection) => ({
    ...conn.channel(),
    // Ended by the features' close: its detach() ends the connection, which is ours alone.
    detach: async () => conn.close(),
  });
  const cdp = connection.then((conn) => RemoteCdp.open(channelOf(conn)));
  const downloads = options.downloads
    ? cdp.then(async (host) => {
        const { RemoteDownloads } = await import('./downloads.js');
        return RemoteDownloads.start(host, options.downloads as RemoteDownloadsOptions);
      })
    : Promise.resolve(undefined);
  const network = !hosts.empty
    ? cdp.then((host) => startNetworkFeatures(host, hosts, options.holdNewPages ?? false))
    : Promise.resolve(undefined);
  const stopNetwork = network.then((started) => started?.stop ?? (async () => {}));
  const started = Promise.all([cdp, downloads, stopNetwork]);
  // A failure is ready()'s to report; the promises above are never left unhandled.
  started.catch(() => {});
  let adopted = false;
  const lost = new Promise<never>((_, reject) => {
    started.catch(reject);
    connection.then(
      (conn) =>
        conn.once('disconnected', () => {
          if (!adopted) reject(new Error("the remote features' CDP connection dropped"));
        }),
      () => {},
    );
  });
  lost.catch(() => {});
  const close = () => {
    closing ??= (async () => {
      const [host, downloadBridge, stop] = await started.catch(() => [
        undefined,
        undefined,
        undefined,
      ]);
      await Promise.allSettled([stop?.(), downloadBridge?.close()]);
      await host?.close();
      // Not opened yet, opened after a failed start, or reopened: closed either way.
      await connection.then((conn) => conn.close()).catch(() => {});
      await current.then((conn) => conn.close()).catch(() => {});
    })();
    return closing;
  };
  /**
   * The features' connection dropped while the browser's stayed: the same session is reached
   * again on a new connection and the features move onto it (RemoteCdp.reopen()), so the
   * tunnel, the bridges, downloads and geo go on. When no connection opens within
   * REOPEN_DELAYS_MS, the user is told once what stopped.
   */
  const reopen = async (): Promise<void> => {
    let failure: unknown;
    for (const delayMs of REOPEN_DELAYS_MS) {
      // Unref'd: a script that is done exits without waiting for a reopen it no longer needs.
      await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
      if (closing) return;
      let conn: CdpConnection | undefined;
      try {
        conn = await connect();
        if (closing) return void conn.close();
        current = Promise.resolve(conn);
        await (await cdp).reopen(channelOf(conn));
        debug('the remote features reopened their dropped CDP connection');
        watch(conn);
        return;
      } catch (error) {
        // Opened but its setup failed: not kept open beside the next try's.
        conn?.close();
        failure = error;
        debug(`reopening the remote features' connection failed: ${(error as Error).message}`);
      }
    }
    if (closing) return;
    process.emitWarning(
      `the remote features' CDP connection dropped and could not be reopened ` +
        `(${(failure as Error).message}): exposeNetwork, the WebSocket and download bridges ` +
        `and geo overrides stopped for this browser; its own connection is unaffected`,
      { type: 'RemoteBrowserWarning', code: 'REMOTE_BROWSER_FEATURES_LOST' },
    );
    await close();
  };
  const watch = (conn: CdpConnection) =>
    conn.once('disconnected', () => {
      if (!closing) void reopen();
    });
  return {
    downloads,
    bridge: network.then(
      (started) => started?.bridge,
      () => undefined,
    ),
    cdp,
    open: async () => {
      await cdp;
      throw new Error('the remote features were not adopted by this browser');
    },
    async ready() {
      const [host] = await started;
      await host.ready();
    },
    lost,
    adopt(browser) {
      adopted = true;
      adoptRemoteCdp(browser, cdp);
      browser.once('disconnected', () => void close());
      // Before adoption a drop fails ready(): the connect is tried again as a whole.
      void started.then(
        () => connection.then(watch),
        () => {},
      );
    },
    close,
  };
}

/** How long to wait before each try to reopen a dropped features connection. */
const REOPEN_DELAYS_MS = [0, 250, 1000, 3000];

const opened = new WeakMap<object, Promise<RemoteCdp>>();

/**
 * The one RemoteCdp of a native browser, opened on first ask with `open` (the adapter's
 * browser-level session) and closed when the browser disconnects. Every feature of the same
 * browser gets the same instance.
 */
export function remoteCdpFor(browser: object, open: () => Promise<CdpChannel>): Promise<RemoteCdp> {
  let cdp = opened.get(browser);
  if (!cdp) {
    cdp = open().then((channel) => RemoteCdp.open(channel));
    opened.set(browser, cdp);
    cdp.catch(() => opened.delete(browser));
  }
  return cdp;
}

/**
 * Makes `cdp` (opened elsewhere: openRemoteFeatures() on the features' own connection) the one
 * RemoteCdp of `browser`, which remoteCdpFor() returns to every feature of that browser.
 */
function adoptRemoteCdp(browser: object, cdp: Promise<RemoteCdp>): void {
  opened.set(browser, cdp);
  cdp.catch(() => {
    if (opened.get(browser) === cdp) opened.delete(browser);
  });
}
