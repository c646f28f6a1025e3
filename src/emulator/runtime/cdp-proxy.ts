/**
 * The session's `cdp_url`: `ws://<emulator host>/cdp/<sessionId>?token=<access token>`, proxied
 * to that session's Chromium. The token is checked by the control plane's resolver on every
 * upgrade and every `/json/*` request; refusals never echo it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { parseTarget } from '../server/own-origin.js';
import { refuseUpgrade } from '../server/raw-http.js';
import { sendError } from '../server/router.js';
import { openDebuggerAddress } from './debugger-address.js';
import { devtoolsPathOf, queryWithoutToken, serveDevtoolsJson } from './devtools-json.js';
import type {
  CdpProxy,
  CdpTargetResolver,
  RunningBrowser,
  RunningSession,
  SessionDirectory,
} from './types.js';
import { forwardUpgrade } from './upgrade-forward.js';

export interface CdpProxyOptions {
  /** Origin of the emulator server clients reach, e.g. `http://127.0.0.1:PORT`. */
  publicOrigin: () => string;
  resolve: CdpTargetResolver;
  /** The control plane's running sessions by id (no token): the debugger address, 404s. */
  sessions: SessionDirectory;
}

interface ProxyPath {
  sessionId: string;
  /** What follows `/cdp/<sessionId>`: '' (browser socket), `/devtools/page/<id>`, `/json/version`... */
  rest: string;
  token: string | undefined;
  /** The raw query (`/json/new?<url>` takes it whole), without the leading `?`. */
  search: string;
}

/** Undefined for a path that is not the proxy's, or one that cannot be parsed or decoded. */
function parseProxyPath(url: string | undefined): ProxyPath | undefined {
  const parsed = parseTarget(url);
  const match = parsed && /^\/cdp\/([^/]+)(\/.*)?$/.exec(parsed.pathname);
  if (!match) return undefined;
  return {
    // parseTarget decoded the whole path once: each segment decodes too.
    sessionId: decodeURIComponent(match[1]!),
    rest: match[2] ?? '',
    token: parsed.searchParams.get('token') ?? undefined,
    search: parsed.search,
  };
}

type Refusal = { status: 401 | 404; error: string };
const NOT_RUNNING: Refusal = { status: 404, error: 'session not found or no longer running' };
/**
 * The resolver only says yes or no; the status tells a missing or wrong token (401) from a
 * session that is not running (404), which the control plane's directory knows. A browser that
 * ended since (a stop racing the request) is not running either.
 */
function authorize(
  resolve: CdpTargetResolver,
  sessions: SessionDirectory,
  { sessionId, token }: ProxyPath,
): RunningSession | Refusal {
  const target = token === undefined ? undefined : resolve(sessionId, token);
  if (target) return target.browser.hasEnded() ? NOT_RUNNING : target;
  if (token === undefined)
    return { status: 401, error: 'missing access token: use the cdp_url as given' };
  if (!sessions.running(sessionId)) return NOT_RUNNING;
  return { status: 401, error: 'invalid access token for this session' };
}

/** Chromium's path for a proxied socket; undefined for a path we do not serve. */
function chromiumPathFor(rest: string, browser: RunningBrowser): string | undefined {
  if (rest === '' || rest === '/' || /^\/devtools\/browser\/[^/]+$/.test(rest))
    return browser.browserWsPath;
  if (/^\/devtools\/page\/[^/]+$/.test(rest)) return rest;
  return undefined;
}

export function createCdpProxy({ publicOrigin, resolve, sessions }: CdpProxyOptions): CdpProxy {
  const publicWsBase = () => {
    const origin = new URL(publicOrigin());
    return `${origin.protocol === 'https:' ? 'wss' : 'ws'}://${origin.host}`;
  };
  const cdpUrl = (sessionId: string, token: string, rest = '') =>
    `${publicWsBase()}/cdp/${encodeURIComponent(sessionId)}${rest}?token=${encodeURIComponent(token)}`;

  return {
    cdpUrl: (sessionId, token) => cdpUrl(sessionId, token),

    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
      const path = parseProxyPath(req.url);
      if (!path) return false;
      const verdict = authorize(resolve, sessions, path);
      if ('status' in verdict) {
        refuseUpgrade(socket, verdict.status, verdict.error);
        return true;
      }
      const chromiumPath = chromiumPathFor(path.rest, verdict.browser);
      if (!chromiumPath) {
        refuseUpgrade(socket, 404, 'no such CDP endpoint');
        return true;
      }
      const teardown = forwardUpgrade(req, socket, head, {
        chromiumAddress: verdict.browser.chromiumAddress,
        path: chromiumPath,
        onActivity: verdict.onActivity,
      });
      // Chromium's death closes the TCP side anyway; this covers a stop that races the upgrade.
      void verdict.browser.ended.then(teardown);
      return true;
    },

    handleHttp(req: IncomingMessage, res: ServerResponse): boolean {
      const rootProtocol = serveRootProtocol(req, res, sessions);
      if (rootProtocol) return true;
      const path = parseProxyPath(req.url);
      if (!path) return false;
      const devtoolsPath = devtoolsPathOf(path.rest);
      if (!devtoolsPath) return sendError(res, 404, 'no such CDP endpoint');
      const verdict = authorize(resolve, sessions, path);
      if ('status' in verdict) return sendError(res, verdict.status, verdict.error);
      verdict.onActivity();
      const token = path.token!;
      void serveDevtoolsJson(
        res,
        verdict.browser.chromiumAddress,
        { method: req.method ?? 'GET', path: devtoolsPath, query: queryWithoutToken(path.search) },
        (chromiumPath) =>
          new URL(
            chromiumPath.startsWith('/devtools/page/')
              ? cdpUrl(path.sessionId, token, chromiumPath)
              : cdpUrl(path.sessionId, token),
          ),
      );
      return true;
    },

    openDebuggerAddress: (sessionId) => openDebuggerAddress(sessionId, sessions),
  };
}

/**
 * `/json/protocol` at the server's root: a CDP client given only the cdp_url (chrome-remote-
 * interface with default options) asks for the protocol beside it, at the host's root, without
 * the token. The protocol is the same public document for every session (one Chromium build),
 * so any running session's browser answers it; nothing session-specific is served here.
 */
function serveRootProtocol(
  req: IncomingMessage,
  res: ServerResponse,
  sessions: SessionDirectory,
): boolean {
  const pathname = parseTarget(req.url)?.pathname;
  if (pathname === undefined || devtoolsPathOf(pathname) !== '/json/protocol') return false;
  const entry = sessions.anyRunning();
  if (!entry) {
    return sendError(res, 404, 'no session is running: the protocol comes from a session browser');
  }
  void serveDevtoolsJson(
    res,
    entry.browser.chromiumAddress,
    { method: req.method === 'HEAD' ? 'HEAD' : 'GET', path: '/json/protocol', query: '' },
    () => new URL('ws://unused'),
  );
  return true;
}
