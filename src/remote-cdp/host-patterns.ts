/**
 * `exposeNetwork`, Playwright's option syntax: comma-separated host patterns, `*` wildcards
 * (`*.dev.test`, `.dev.test` meaning the same), an optional `:port`, `<loopback>` for
 * `localhost` (and `*.localhost`), `127.0.0.1` and `[::1]`, `*` for every host; `''` exposes
 * nothing. An IP pattern matches that address only; a name pattern never matches an IP.
 */
import type { FetchPattern } from './remote-cdp.js';

/** The option's default everywhere: the client's own loopback. */
export const DEFAULT_EXPOSE_NETWORK = '<loopback>';

const RULE =
  'write comma-separated hosts with optional * wildcards and :port, e.g. "localhost:3000,*.dev.test" or "<loopback>" ("" exposes nothing)';

interface HostPattern {
  /** Lowercase host, as it appears in a URL (`[::1]` with brackets). */
  host: string;
  port: number | undefined;
}

export interface ExposedHosts {
  /** Whether the remote browser's request to `url` is served from the client. */
  matches(url: URL): boolean;
  /** What to pause in Chromium: every URL of a matching host, no other. */
  readonly fetchPatterns: FetchPattern[];
  readonly empty: boolean;
}

/** Why `value` is not a valid `exposeNetwork`, or undefined when it is. */
export function exposeNetworkProblem(value: string): string | undefined {
  try {
    parseTokens(value);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Parses a valid `exposeNetwork` (check it with exposeNetworkProblem() first: this throws). */
export function parseExposeNetwork(value: string): ExposedHosts {
  const tokens = parseTokens(value);
  const matchers = tokens.map(matcherOf);
  return {
    empty: tokens.length === 0,
    matches(url) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
      const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
      const host = url.hostname.toLowerCase();
      return matchers.some((m) => m(host, port));
    },
    fetchPatterns: tokens.flatMap(fetchPatternsOf),
  };
}

function parseTokens(value: string): HostPattern[] {
  if (value.trim() === '') return [];
  return value.split(',').map((raw, index) => {
    const token = raw.trim().toLowerCase();
    const where = `entry ${index + 1}`;
    if (token === '') throw new Error(`${where} is empty: ${RULE}`);
    const match = /^(.*?)(?::(\d+))?$/.exec(token) as RegExpExecArray;
    const host = match[1] as string;
    const port = match[2] === undefined ? undefined : Number(match[2]);
    if (port !== undefined && (port < 1 || port > 65535)) {
      throw new Error(`${where} "${token}" has port ${match[2]}, outside 1-65535: ${RULE}`);
    }
    const valid =
      host === '<loopback>' ||
      /^\[[0-9a-f:.]+\]$/.test(host) ||
      /^[a-z0-9*]([a-z0-9*.-]*[a-z0-9*])?$/.test(host) ||
      /^\.[a-z0-9*]([a-z0-9*.-]*[a-z0-9*])?$/.test(host);
    if (!valid) throw new Error(`${where} "${raw.trim()}" is not a host pattern: ${RULE}`);
    return { host: host.startsWith('.') ? `*${host}` : host, port };
  });
}

function matcherOf(pattern: HostPattern): (host: string, port: number) => boolean {
  const portOk = (port: number) => pattern.port === undefined || pattern.port === port;
  if (pattern.host === '<loopback>') {
    return (host, port) =>
      portOk(port) &&
      (host === 'localhost' ||
        host.endsWith('.localhost') ||
        host === '127.0.0.1' ||
        host === '[::1]');
  }
  if (pattern.host === '*') return (_host, port) => portOk(port);
  if (isIp(pattern.host)) return (host, port) => host === pattern.host && portOk(port);
  const regex = new RegExp(
    `^${pattern.host
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (host, port) => portOk(port) && !isIp(host) && regex.test(host);
}

function isIp(host: string): boolean {
  return host.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(host);
}

/** Chromium URL patterns that pause every request to the host (and more: matches() decides). */
function fetchPatternsOf(pattern: HostPattern): FetchPattern[] {
  const hosts =
    pattern.host === '<loopback>'
      ? ['localhost', '*.localhost', '127.0.0.1', '[::1]']
      : [pattern.host];
  if (pattern.host === '*') return [{ urlPattern: 'http*://*', requestStage: 'Request' }];
  const ports = pattern.port === undefined ? ['', ':*'] : [`:${pattern.port}`];
  // A default port is not in the URL: `localhost:80` pauses `http://localhost/…` too.
  if (pattern.port === 80 || pattern.port === 443) ports.push('');
  return hosts.flatMap((host) =>
    ports.map((port) => ({
      urlPattern: `http*://${host}${port}/*`,
      requestStage: 'Request' as const,
    })),
  );
}
