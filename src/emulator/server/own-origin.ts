/**
 * The emulator answers only its own origin. Every listener (the service origin, each session's
 * `debugger_address`) checks each request and websocket upgrade before anything else:
 * - `Host` must name loopback (`127.0.0.1`, `localhost`, `[::1]`) or the bound host, with the
 *   listener's own port: a page that rebinds its DNS name to 127.0.0.1 sends its own name;
 * - an `Origin`, when sent, must be such an origin too: a page of another site is refused (a
 *   missing `Origin` is a non-browser client: Playwright, Puppeteer, curl send none);
 * - a POST/PUT/PATCH body must be `application/json`: a cross-site form or `text/plain` fetch
 *   cannot pass as a JSON request.
 * It also parses the request target once, so that no handler meets a path it cannot decode.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether `host` (as given to `startEmulator` or `--host`) is a loopback address or name. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** What a listener answers to: the bound host (`127.0.0.1`, `::`...) and its public port(s). */
export interface Listener {
  boundHost: string;
  /** The ports clients reach it on (its own; a latency front's). */
  ports: readonly number[];
}

/** A refused request: the status and a message that quotes nothing the client sent. */
export interface Refusal {
  status: 400 | 403 | 415;
  message: string;
}

/** The request target parsed, or undefined when it cannot be (`//`, a bad percent-escape). */
export function parseTarget(rawUrl: string | undefined): URL | undefined {
  const raw = rawUrl ?? '/';
  if (!raw.startsWith('/') || raw.startsWith('//')) return undefined;
  try {
    const url = new URL(raw, 'http://emulator.invalid');
    // Every later decode of a segment succeeds once the whole path decodes.
    decodeURIComponent(url.pathname);
    return url;
  } catch {
    return undefined;
  }
}

export const MALFORMED_TARGET: Refusal = {
  status: 400,
  message: 'Malformed request path (bad percent-encoding or not an absolute path)',
};

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

function hostnameAllowed(hostname: string, boundHost: string): boolean {
  const name = hostname.toLowerCase();
  if (LOOPBACK_NAMES.has(name)) return true;
  const bound = boundHost.toLowerCase();
  if (name === bound || name === `[${bound}]`) return true;
  // Bound to every interface: an IP literal of any of them (a rebinding page sends a DNS name).
  return WILDCARD_HOSTS.has(bound) && isIP(name.replace(/^\[(.*)\]$/, '$1')) !== 0;
}

/** `host[:port]` as a URL authority, or undefined when it is anything more (user info, a path). */
function authority(value: string, scheme: 'http:' | 'https:'): URL | undefined {
  const url = `${scheme}//${value}`;
  return /^[a-z0-9.\-[\]:]+$/i.test(value) && URL.canParse(url) ? new URL(url) : undefined;
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

function sameListener(url: URL | undefined, listener: Listener): boolean {
  return (
    url !== undefined &&
    hostnameAllowed(url.hostname, listener.boundHost) &&
    listener.ports.includes(portOf(url))
  );
}

/** Host and Origin checks of any request or upgrade to `listener`; undefined when it may pass. */
export function foreignRequest(req: IncomingMessage, listener: Listener): Refusal | undefined {
  const host = req.headers.host;
  if (!host || !sameListener(authority(host, 'http:'), listener)) {
    return {
      status: 403,
      message:
        'Host not allowed: the emulator answers only requests addressed to its own loopback origin',
    };
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const match = /^(https?:)\/\/([^/]+)$/i.exec(origin);
    const url = match
      ? authority(match[2] as string, match[1]!.toLowerCase() as 'http:')
      : undefined;
    if (!sameListener(url, listener)) {
      return {
        status: 403,
        message: 'Cross-site request refused: Origin is not the emulator\u2019s own origin',
      };
    }
  }
  return undefined;
}

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * A POST/PUT/PATCH's declared body type: `application/json` or none at all (an empty body).
 * A body sent without a type is refused once its size is known (`bodyNeedsJsonType`).
 */
export function nonJsonBody(req: IncomingMessage): Refusal | undefined {
  if (!WITH_BODY.has((req.method ?? 'GET').toUpperCase())) return undefined;
  const type = req.headers['content-type'];
  const declaresBody =
    type !== undefined ||
    req.headers['transfer-encoding'] !== undefined ||
    Number(req.headers['content-length'] ?? 0) > 0;
  if (!declaresBody) return undefined;
  if (type !== undefined && /^application\/json\s*(;|$)/i.test(type)) return undefined;
  return {
    status: 415,
    message: 'Unsupported Content-Type: a request body must be sent as application/json',
  };
}
