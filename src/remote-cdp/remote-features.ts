/**
 * The one call each adapter makes after connecting: starts the remote-CDP features the
 * options ask for on the browser's RemoteCdp and ends them when the browser disconnects.
 * A network feature that is off pauses nothing: with `exposeNetwork: ''` no request goes
 * through the client. The download bridge (src/playwright/downloads.ts, src/puppeteer/transfers.ts)
 * still opens the shared session, and holds each document response one round trip to learn
 * whether it is a download (docs/remote.md).
 */
import type { CdpChannel } from './cdp-channel.js';
import { DEFAULT_EXPOSE_NETWORK, parseExposeNetwork } from './host-patterns.js';
import { startNetworkTunnel } from './network-tunnel.js';
import { remoteCdpFor } from './remote-cdp.js';
import { startWebSocketBridge } from './websocket-bridge.js';

export interface RemoteFeatureOptions {
  /** See `ConnectOptions.exposeNetwork`. Default: `'<loopback>'`. */
  exposeNetwork?: string;
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
  const exposeNetwork = options.exposeNetwork ?? DEFAULT_EXPOSE_NETWORK;
  if (parseExposeNetwork(exposeNetwork).empty) return;
  const cdp = await remoteCdpFor(browser, open);
  const stops = [
    await startWebSocketBridge(cdp, exposeNetwork),
    await startNetworkTunnel(cdp, exposeNetwork),
  ];
  browser.once('disconnected', () => {
    void Promise.all(stops.map((stop) => stop())).finally(() => cdp.close());
  });
}
