/**
 * Chromium's `/json/version` and `/json/list` as seen through the proxy: fetched from Chromium,
 * then every websocket and DevTools-frontend URL is rewritten so that it points at the proxy.
 * Handing out Chromium's own port would let a client bypass the token and the activity timer.
 */
import type { ServerResponse } from 'node:http';

/** Maps a Chromium devtools path (`/devtools/browser/..`, `/devtools/page/..`) to a public ws URL. */
export type WsUrlMapper = (chromiumPath: string) => URL;

export type JsonEndpoint = 'version' | 'list';

/** `/json/version`, `/json/list`, `/json` with or without a trailing slash (Playwright adds one). */
export function jsonEndpointOf(rest: string): JsonEndpoint | undefined {
  const trimmed = rest.replace(/\/$/, '');
  if (trimmed === '/json/version') return 'version';
  if (trimmed === '/json/list' || trimmed === '/json') return 'list';
  return undefined;
}

export async function serveDevtoolsJson(
  res: ServerResponse,
  chromiumAddress: string,
  endpoint: JsonEndpoint,
  mapWsUrl: WsUrlMapper,
): Promise<void> {
  let body: unknown;
  try {
    const answer = await fetch(`http://${chromiumAddress}/json/${endpoint}`, {
      signal: AbortSignal.timeout(5_000),
    });
    body = await answer.json();
  } catch {
    sendJson(res, 502, { error: 'the session browser did not answer' });
    return;
  }
  const entries = Array.isArray(body) ? body : [body];
  for (const entry of entries as Record<string, unknown>[]) rewriteEntry(entry, mapWsUrl);
  sendJson(res, 200, body);
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

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, null, 2);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
