/**
 * The client end of one bridged WebSocket: the real socket Node opens with the `ws` package
 * (loaded only when a page opens one) for a page of the remote browser, as that browser would
 * have opened it:
 *
 * - only from a document on an exposed host to an exposed `ws:`/`wss:` URL (the door rule of
 *   private-network.ts, for sockets);
 * - with the page's `Origin` and exactly the cookies the browser would send on that socket: the
 *   browser's cookies for the URL (HttpOnly included), less the `SameSite=Strict`/`Lax` ones
 *   (and those without `SameSite`, Lax by default) when the socket is cross-site to its page or
 *   to the tab's top document;
 * - `localhost` names resolved to loopback, never through DNS (loopback-names.ts).
 */
import { getDomain } from 'tldts';
import type WebSocketType from 'ws';
import { createDebug } from '../http/debug.js';
import { nodeHttp, nodeHttps } from '../http/node-builtins.js';
import type { ExposedHosts } from './host-patterns.js';
import { loopbackFirstLookup } from './loopback-names.js';

const debug = createDebug('expose-network');

/** What Node tells the page about its socket. */
export type SocketEvent =
  | { id?: number; type: 'open'; protocol: string; extensions: string }
  | { id?: number; type: 'message'; text?: string; base64?: string }
  | { id?: number; type: 'error' }
  | { id?: number; type: 'close'; code: number; reason: string; wasClean: boolean };

/** `Network.Cookie`, the fields read here. */
export interface BrowserCookie {
  name: string;
  value: string;
  path: string;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

export interface BridgedSocketRequest {
  hosts: ExposedHosts;
  /** The calling document's origin as Chromium reports it; undefined when unknown. */
  pageOrigin: string | undefined;
  /** The tab's top-level document URL. */
  topUrl: string | undefined;
  url: string;
  protocols: string[];
  /** The browser's cookies for these URLs (`Network.getCookies`). */
  cookies(urls: string[]): Promise<{ cookies: BrowserCookie[] }>;
  onEvent(event: SocketEvent): void;
}

export interface BridgedSocket {
  send(message: { text?: string; base64?: string }): void;
  close(code?: number, reason?: string): void;
  /** The page went away: closes with 1001 as a local browser does. */
  goingAway(): void;
  terminate(): void;
}

/** Opens the socket, or resolves undefined when the door rule refuses it (nothing is opened). */
export async function openBridgedSocket(
  request: BridgedSocketRequest,
): Promise<BridgedSocket | undefined> {
  const { hosts, pageOrigin } = request;
  const target = parseUrl(request.url);
  const http = target && new URL(target.href);
  if (http) http.protocol = target.protocol === 'wss:' ? 'https:' : 'http:';
  if (
    !target ||
    !http ||
    (target.protocol !== 'ws:' && target.protocol !== 'wss:') ||
    pageOrigin === undefined ||
    !isExposed(hosts, pageOrigin) ||
    !hosts.matches(http)
  ) {
    debug(`refused WebSocket: its page ${pageOrigin ?? '(unknown)'} is not exposed`);
    return undefined;
  }
  const { cookies } = await request.cookies([http.href]);
  const headers: Record<string, string> = {};
  const sent = cookiesForSocket(cookies, http, pageOrigin, request.topUrl);
  if (sent) headers.cookie = sent;
  const { default: WebSocket } = await import('ws');
  const agent =
    target.protocol === 'wss:'
      ? new (nodeHttps().Agent)({ lookup: loopbackFirstLookup })
      : new (nodeHttp().Agent)({ lookup: loopbackFirstLookup });
  const socket = new WebSocket(target.href, request.protocols, {
    origin: pageOrigin,
    headers,
    agent,
  });
  relay(socket, target.origin, request.onEvent);
  return {
    send(message) {
      if (socket.readyState !== socket.OPEN) return;
      if (message.base64 !== undefined) socket.send(Buffer.from(message.base64, 'base64'));
      else socket.send(message.text ?? '');
    },
    close(code, reason) {
      if (socket.readyState === socket.CONNECTING) socket.terminate();
      else if (code === undefined) socket.close();
      else socket.close(code, reason);
    },
    goingAway() {
      if (socket.readyState === socket.OPEN) socket.close(1001);
      else socket.terminate();
    },
    terminate: () => socket.terminate(),
  };
}

/**
 * The `Cookie` header the browser would send on a socket to `url` from a document of
 * `pageOrigin` in a tab at `topUrl`: longer paths first; SameSite ones only when same-site.
 */
export function cookiesForSocket(
  cookies: BrowserCookie[],
  url: URL,
  pageOrigin: string,
  topUrl: string | undefined,
): string | undefined {
  const site = schemefulSite(url);
  const sameSite =
    site !== undefined &&
    schemefulSite(parseUrl(pageOrigin)) === site &&
    (topUrl === undefined || schemefulSite(parseUrl(topUrl)) === site);
  const sent = cookies
    .filter((c) => sameSite || c.sameSite === 'None')
    .sort((a, b) => b.path.length - a.path.length);
  return sent.length === 0 ? undefined : sent.map((c) => `${c.name}=${c.value}`).join('; ');
}

/** Scheme (ws as http) + registrable domain, or the host itself for an IP or a bare name. */
function schemefulSite(url: URL | undefined): string | undefined {
  if (!url) return undefined;
  const scheme = SCHEMES[url.protocol];
  if (scheme === undefined) return undefined;
  const host = url.hostname.toLowerCase();
  return `${scheme}://${getDomain(host, { allowPrivateDomains: true }) ?? host}`;
}

const SCHEMES: Record<string, string> = {
  'ws:': 'http',
  'http:': 'http',
  'wss:': 'https',
  'https:': 'https',
};

function relay(socket: WebSocketType, origin: string, onEvent: (e: SocketEvent) => void): void {
  socket.on('open', () =>
    onEvent({ type: 'open', protocol: socket.protocol, extensions: socket.extensions }),
  );
  socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    const bytes = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(data);
    onEvent(
      isBinary
        ? { type: 'message', base64: bytes.toString('base64') }
        : { type: 'message', text: bytes.toString('utf8') },
    );
  });
  let failed = false;
  socket.on('error', (error) => {
    debug(`bridged WebSocket ${origin}: ${error.message}`);
    failed = true;
    onEvent({ type: 'error' });
  });
  socket.on('close', (code, reason) => {
    onEvent({
      type: 'close',
      code,
      reason: reason.toString('utf8'),
      wasClean: !failed && code !== 1006,
    });
  });
}

function isExposed(hosts: ExposedHosts, origin: string): boolean {
  const url = parseUrl(origin);
  return url !== undefined && hosts.matches(url); // `null` (an opaque origin) is no URL
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
