/**
 * The one place the emulator writes HTTP/1.1 by hand, for sockets node:http has handed over (a
 * websocket upgrade, a proxy's CONNECT) where no `ServerResponse` exists: an answer that
 * refuses an upgrade, a proxy's status line, a replayed request head, and the two-way pipe of
 * two sockets. Heads are built from the caller's status and headers only: nothing of the
 * request (whose query may hold an access token) is ever echoed.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { VERSION } from '../../version.js';

/** Header pairs as node gives them (`rawHeaders`: name, value, name, value, ...) or a record. */
export type RawHeaders = readonly string[] | Readonly<Record<string, string>>;

function headerLines(headers: RawHeaders): string[] {
  if (!Array.isArray(headers)) {
    return Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  }
  const lines: string[] = [];
  for (let i = 0; i + 1 < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  return lines;
}

/** A response head, blank line included: `HTTP/1.1 <status> <reason>`, then the headers. */
export function responseHead(
  status: number,
  headers: RawHeaders = {},
  reason: string = STATUS_CODES[status] ?? 'Error',
): string {
  return [`HTTP/1.1 ${status} ${reason}`, ...headerLines(headers), '', ''].join('\r\n');
}

/** A request head, blank line included: `<method> <path> HTTP/1.1`, then the headers. */
export function requestHead(method: string, path: string, headers: RawHeaders): string {
  return [`${method} ${path} HTTP/1.1`, ...headerLines(headers), '', ''].join('\r\n');
}

/** A whole JSON response that closes the connection, stamped `X-Emulator-Version`. */
export function rawJsonResponse(status: number, body: unknown): string {
  const text = JSON.stringify(body);
  return (
    responseHead(status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      'x-emulator-version': VERSION,
      connection: 'close',
    }) + text
  );
}

/**
 * Answers an upgrade that will not become a websocket with a JSON error (`{ error }`, or the
 * `body` given) and closes the socket once the answer is written.
 */
export function refuseUpgrade(
  socket: Duplex,
  status: number,
  error: string,
  body: unknown = { error },
): void {
  // A client that resets first must not become an uncaught 'error'.
  socket.on('error', () => {});
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawJsonResponse(status, body), () => socket.destroy());
}

/**
 * Pipes two sockets both ways until either closes or fails, then destroys both (a second
 * destroy is a no-op). Calls `onActivity` for every chunk in either direction. Returns the
 * teardown, for a caller that ends the pair itself.
 */
export function pipeBoth(a: Duplex, b: Duplex, onActivity?: () => void): () => void {
  const teardown = () => {
    a.destroy();
    b.destroy();
  };
  for (const side of [a, b]) {
    side.on('error', teardown);
    side.on('close', teardown);
    if (onActivity) side.on('data', onActivity);
  }
  a.pipe(b);
  b.pipe(a);
  return teardown;
}
