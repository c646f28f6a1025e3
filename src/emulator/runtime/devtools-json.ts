/**
 * Chrome's remote-debugging HTTP surface (`/json/version`, `/json` and `/json/list`,
 * `/json/protocol`, `PUT /json/new?<url>`, `/json/activate/<id>`, `/json/close/<id>`) as seen
 * through the proxy. Each request is replayed on the session's own Chromium with its method and
 * query, so shapes, status codes and messages are Chrome's own (a GET on `/json/new` is its 405,
 * an unknown target its 404 "No such target id"); in JSON answers every websocket and DevTools
 * frontend URL is rewritten to point at the proxy. Handing out Chromium's own port would let a
 * client bypass the token and the activity timer.
 */
import type { ServerResponse } from 'node:http';
import { sendError } from '../server/router.js';
import { type DevtoolsEndpoint, requestDevtools } from './devtools-endpoint.js';

/** Maps a Chromium devtools path (`/devtools/browser/..`, `/devtools/page/..`) to a public ws URL. */
export type WsUrlMapper = (chromiumPath: string) => URL;

export interface DevtoolsRequest {
  method: string;
  /** `/json`, `/json/list`, `/json/new`, `/json/close/<id>`... (a trailing slash is dropped). */
  path: string;
  /** The raw query without `?` and without our access token: `/json/new?<url>` takes it whole. */
  query: string;
}

/** `/json` and everything under it: Chrome's HTTP endpoints (Playwright adds a trailing slash). */
export function devtoolsPathOf(rest: string): string | undefined {
  const trimmed = rest.length > 1 ? rest.replace(/\/+$/, '') : rest;
  return trimmed === '/json' || trimmed.startsWith('/json/') ? trimmed : undefined;
}

/** Answers whose JSON carries target URLs to rewrite; `/json/protocol` (1.6 MB) passes as is. */
const REWRITTEN = new Set(['/json', '/json/list', '/json/version', '/json/new']);

export async function serveDevtoolsJson(
  res: ServerResponse,
  chromiumAddress: DevtoolsEndpoint,
  request: DevtoolsRequest,
  mapWsUrl: WsUrlMapper,
): Promise<void> {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const path = `${request.path}${request.query ? `?${request.query}` : ''}`;
  const answer = await requestDevtools(chromiumAddress, method, path, 10_000).catch(
    () => undefined,
  );
  if (!answer) return void sendError(res, 502, 'the session browser did not answer');
  let body = answer.body;
  const ok = answer.status >= 200 && answer.status < 300;
  if (ok && REWRITTEN.has(request.path)) {
    try {
      const json = JSON.parse(body.toString('utf8')) as unknown;
      const entries = Array.isArray(json) ? json : [json];
      for (const entry of entries as Record<string, unknown>[]) rewriteEntry(entry, mapWsUrl);
      body = Buffer.from(JSON.stringify(json, null, 3));
    } catch {
      // Not JSON after all: Chrome's own text goes through unchanged.
    }
  }
  res.writeHead(answer.status, {
    'content-type': answer.contentType ?? 'application/json; charset=UTF-8',
    'content-length': body.length,
    'content-security-policy': "frame-ancestors 'none'",
  });
  res.end(request.method === 'HEAD' ? undefined : body);
}

function rewriteEntry(entry: Record<string, unknown>, mapWsUrl: WsUrlMapper): void {
  if (typeof entry.webSocketDebuggerUrl === 'string') {
    entry.webSocketDebuggerUrl = mapWsUrl(new URL(entry.webSocketDebuggerUrl).pathname).href;
  }
  if (typeof entry.devtoolsFrontendUrl === 'string') {
    // `...inspector.html?ws=127.0.0.1:<port>/devtools/page/<id>`: the frontend prepends ws://.
    const frontend = new URL(entry.devtoolsFrontendUrl, 'http://placeholder');
    const ws = frontend.searchParams.get('ws');
    if (ws) {
      const mapped = mapWsUrl(new URL(`ws://${ws}`).pathname);
      frontend.searchParams.delete('ws');
      frontend.searchParams.set(
        mapped.protocol === 'wss:' ? 'wss' : 'ws',
        mapped.href.replace(/^wss?:\/\//, ''),
      );
    }
    entry.devtoolsFrontendUrl =
      frontend.origin === 'http://placeholder'
        ? frontend.pathname + frontend.search
        : frontend.href;
  }
}

/** The query without the `token` pair, byte for byte otherwise (`/json/new?<url>` is not a form). */
export function queryWithoutToken(search: string): string {
  return search
    .replace(/^\?/, '')
    .split('&')
    .filter((pair) => pair !== '' && !pair.startsWith('token='))
    .join('&');
}
