/**
 * The runtime's own CDP connection to its Chromium: the library's CdpConnection
 * (src/remote-cdp/cdp-connection.ts) opened over the DevTools endpoint's own transport (its TCP
 * port, or the sandbox's unix socket), with a per-call timeout. Its traffic is internal and
 * never counts as session activity (only client traffic through the proxy and page actions do).
 */
import { CdpConnection } from '../../remote-cdp/cdp-connection.js';
import { connectDevtools, type DevtoolsEndpoint, devtoolsWsUrl } from './devtools-endpoint.js';

/** A call Chromium does not answer within this fails (the page actions pass their own). */
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Opens the websocket at `path` (`/devtools/browser/<uuid>`) of Chromium's DevTools endpoint,
 * over the endpoint's own connection.
 */
export function connectRuntimeCdp(
  endpoint: DevtoolsEndpoint,
  path: string,
  openTimeoutMs = 10_000,
): Promise<CdpConnection> {
  return CdpConnection.open(devtoolsWsUrl(endpoint, path), {
    timeoutMs: DEFAULT_TIMEOUT_MS,
    openTimeoutMs,
    socket: { createConnection: () => connectDevtools(endpoint) },
  });
}
