/**
 * Raw websocket pass-through to Chromium: the client's upgrade request is replayed on a fresh
 * connection (TCP, or the sandbox's unix socket) with the path and Host rewritten, then bytes flow both ways untouched, so every
 * CDP client library (Playwright, Puppeteer, chrome-remote-interface) works as if local.
 */
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { connectDevtools, type DevtoolsEndpoint, devtoolsHost } from './devtools-endpoint.js';

/**
 * Answers an upgrade with a plain HTTP error and closes the socket. The body is built from a
 * fixed message only: the request (and the access token in its query) is never echoed.
 */
export function refuseUpgrade(socket: Duplex, status: number, error: string): void {
  const body = JSON.stringify({ error });
  socket.on('error', () => {});
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
    () => socket.destroy(),
  );
}

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

  const lines = [`GET ${path} HTTP/1.1`];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    // Chromium rejects a Host that is not an IP or localhost (DNS-rebinding defence).
    if (raw[i]!.toLowerCase() === 'host') lines.push(`Host: ${devtoolsHost(chromiumAddress)}`);
    else lines.push(`${raw[i]}: ${raw[i + 1]}`);
  }
  upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
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
