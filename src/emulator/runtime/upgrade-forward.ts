/**
 * Raw websocket pass-through to Chromium: the client's upgrade request is replayed on a fresh
 * connection (TCP, or the sandbox's unix socket) with the path and Host rewritten, then bytes flow both ways untouched, so every
 * CDP client library (Playwright, Puppeteer, chrome-remote-interface) works as if local.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { refuseUpgrade, requestHead } from '../server/raw-http.js';
import { connectDevtools, type DevtoolsEndpoint, devtoolsHost } from './devtools-endpoint.js';

export interface ForwardOptions {
  /** Chromium's remote-debugging endpoint: its loopback port, or the sandbox's socket. */
  chromiumAddress: DevtoolsEndpoint;
  /** Path (and query, none needed) on Chromium: `/devtools/browser/<uuid>` or `/devtools/page/<id>`. */
  path: string;
  /** Called for every chunk in either direction: client traffic keeps the session alive. */
  onActivity: () => void;
}

/** Pipes an accepted upgrade to Chromium; returns a function that tears both sides down. */
export function forwardUpgrade(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  { chromiumAddress, path, onActivity }: ForwardOptions,
): () => void {
  const upstream = connectDevtools(chromiumAddress);
  let closed = false;
  const teardown = () => {
    if (closed) return;
    closed = true;
    client.destroy();
    upstream.destroy();
  };

  // Chromium rejects a Host that is not an IP or localhost (DNS-rebinding defence).
  const headers = req.rawHeaders.map((value, i) =>
    i % 2 === 1 && req.rawHeaders[i - 1]?.toLowerCase() === 'host'
      ? devtoolsHost(chromiumAddress)
      : value,
  );
  upstream.write(requestHead('GET', path, headers));
  if (head.length > 0) upstream.write(head);

  upstream.on('connect', () => {
    upstream.setNoDelay(true);
  });
  upstream.on('error', () => {
    if (closed) return;
    // Nothing was relayed yet when Chromium is unreachable: say so instead of a bare reset.
    if (upstream.bytesRead === 0) {
      closed = true;
      upstream.destroy();
      refuseUpgrade(client, 502, 'the session browser is not reachable');
    } else teardown();
  });
  client.on('error', teardown);
  upstream.on('close', teardown);
  client.on('close', teardown);
  upstream.on('data', onActivity);
  client.on('data', onActivity);
  upstream.pipe(client);
  client.pipe(upstream);
  return teardown;
}
