/**
 * The one call each adapter makes after connecting: starts the remote-CDP features the
 * options ask for on the browser's RemoteCdp and ends them when the browser disconnects.
 * Their setup commands go out together and are awaited together (RemoteCdp.ready()); an
 * adapter that starts other features on the same browser (downloads) starts them alongside,
 * not after, so the whole setup is one round trip.
 * A network feature that is off pauses nothing: with `exposeNetwork: ''` no request goes
 * through the client. The download bridge (src/playwright/downloads.ts, src/puppeteer/transfers.ts)
 * still opens the shared session (docs/remote.md).
 */
import type { CdpChannel } from './cdp-channel.js';
import { DEFAULT_EXPOSE_NETWORK, parseExposeNetwork } from './host-patterns.js';
import { remoteCdpFor } from './remote-cdp.js';

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
  // The tunnel and the bridge (undici, ws, zod, node:dns/http/crypto) load with the first
  // browser that starts them, alongside its session's opening: importing an adapter loads none
  // of them (test/package/entry-isolation.test.ts).
  const [cdp, { startWebSocketBridge }, { startNetworkTunnel }] = await Promise.all([
    remoteCdpFor(browser, open),
    import('./websocket-bridge.js'),
    import('./network-tunnel.js'),
  ]);
  // The order the features see a paused request in is INTERCEPT_ORDER's, not this one.
  const stops = await Promise.all([
    startWebSocketBridge(cdp, exposeNetwork),
    startNetworkTunnel(cdp, exposeNetwork),
  ]);
  browser.once('disconnected', () => {
    void Promise.all(stops.map((stop) => stop())).finally(() => cdp.close());
  });
  // Every feature's setup went out without waiting for another's: one round trip for all.
  await cdp.ready();
}
