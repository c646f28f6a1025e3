/**
 * Configuration from options and environment variables; code wins over the environment.
 * Every credential found is registered with `redact()` at once. A plain-http URL to a host that
 * is not loopback is accepted with one warning (`REMOTE_BROWSER_INSECURE_URL`).
 */
import { ConfigurationError } from './errors.js';
import { registerSecret } from './redact.js';

export type Env = Record<string, string | undefined>;

export interface BrowserConfigInput {
  /** Browser service token. Default: `REMOTE_BROWSER_TOKEN`. */
  token?: string | undefined;
  /** Browser service origin. Default: `REMOTE_BROWSER_URL`. `/api/v2/browser` is appended. */
  baseUrl?: string | undefined;
  /** Proxy password sent on session creation. Default: `REMOTE_BROWSER_PROXY_PASSWORD`. */
  proxyPassword?: string | undefined;
}

export interface BrowserConfig {
  token: string;
  /** Origin without a trailing slash. */
  baseUrl: string;
  proxyPassword: string | undefined;
}

export interface AccountConfigInput {
  /** Account API key. Default: `REMOTE_BROWSER_API_KEY`. */
  apiKey?: string | undefined;
  /** Account service origin. Default: `REMOTE_BROWSER_ACCOUNT_URL`. `/api/v2/base` is appended. */
  baseUrl?: string | undefined;
}

export interface AccountConfig {
  apiKey: string;
  baseUrl: string;
}

export const BROWSER_API_PATH = '/api/v2/browser';
export const ACCOUNT_API_PATH = '/api/v2/base';

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * Accepts an origin, tolerating a trailing slash and the API path itself (a common paste).
 * Throws a ConfigurationError naming `option` and `envVar` for anything that is not http(s).
 */
export function normalizeOrigin(
  value: string,
  apiPath: string,
  option: string,
  envVar: string,
): string {
  // `localhost:8787` parses as a URL whose scheme is "localhost:": say what is missing instead.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    const hostPort = /^[\w.-]+(:\d+)?(\/.*)?$/.test(value);
    throw new ConfigurationError(
      hostPort
        ? `${option} (or ${envVar}) has no scheme: use http://${value} (or https://${value} for a TLS service)`
        : `${option} (or ${envVar}) must be an http(s) URL such as https://service.example; got a value that is not a URL`,
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(
      `${option} (or ${envVar}) must be an http(s) URL such as https://service.example; got a value that is not a URL`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError(
      `${option} (or ${envVar}) must use http or https, not ${url.protocol}`,
    );
  }
  if (url.username || url.password) {
    throw new ConfigurationError(`${option} (or ${envVar}) must not carry credentials in the URL`);
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(apiPath)) path = path.slice(0, -apiPath.length);
  return `${url.origin}${path}`;
}

/** The `process.emitWarning` code of a plain-http URL to a host that is not loopback. */
const INSECURE_URL_CODE = 'REMOTE_BROWSER_INSECURE_URL';

const warnedInsecure = new Set<string>();

/** `localhost` (and `*.localhost`), 127.0.0.0/8 and `::1`: traffic that never leaves the machine. */
function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/**
 * Warns once per origin (process.emitWarning, code `REMOTE_BROWSER_INSECURE_URL`) when `origin`
 * is plain http to a host that is not loopback: the token, API key and proxy password would
 * cross the network in clear, and anyone on the path could answer for the service.
 */
function warnIfInsecure(origin: string, option: string, envVar: string): void {
  const url = new URL(origin);
  if (url.protocol !== 'http:' || isLoopback(url.hostname) || warnedInsecure.has(url.origin)) {
    return;
  }
  warnedInsecure.add(url.origin);
  process.emitWarning(
    `${option} (or ${envVar}) ${url.origin} is plain http to a host that is not loopback: credentials travel in clear and anyone on the path can answer for the service; use https`,
    { type: 'RemoteBrowserWarning', code: INSECURE_URL_CODE },
  );
}

/** One error for everything missing, each with where to find it: no fixing one at a time. */
function missing(service: string, items: (string | false)[]): void {
  const lines = items.filter((item): item is string => typeof item === 'string');
  if (lines.length === 0) return;
  throw new ConfigurationError(
    `Missing ${service} configuration (${lines.length}): ${lines.map((l) => `\n  - ${l}`).join('')}`,
  );
}

export interface BrowserConfigNeeds {
  /**
   * The caller creates sessions, which the service refuses without a proxy password: a missing
   * one is named with the others, before any request (not after a preflight on the wire).
   * Default: false (listing, reading and ending sessions need no proxy password).
   */
  proxyPassword?: boolean;
}

export function resolveBrowserConfig(
  input: BrowserConfigInput = {},
  env: Env = process.env,
  needs: BrowserConfigNeeds = {},
): BrowserConfig {
  const token = nonEmpty(input.token) ?? nonEmpty(env.REMOTE_BROWSER_TOKEN);
  const baseUrl = nonEmpty(input.baseUrl) ?? nonEmpty(env.REMOTE_BROWSER_URL);
  const proxyPassword =
    nonEmpty(input.proxyPassword) ?? nonEmpty(env.REMOTE_BROWSER_PROXY_PASSWORD);
  registerSecret(token);
  registerSecret(proxyPassword);
  missing('browser service', [
    !baseUrl &&
      'REMOTE_BROWSER_URL (or `baseUrl`): the service origin; for a local emulator run `remote-browser emulator` and export the lines it prints',
    !token &&
      "REMOTE_BROWSER_TOKEN (or `token`): shown on the account dashboard's browser page, valid for 7 days",
    needs.proxyPassword === true &&
      !proxyPassword &&
      "REMOTE_BROWSER_PROXY_PASSWORD (or `proxyPassword`): the account dashboard's proxy settings; every session needs it",
  ]);
  if (!baseUrl || !token) throw new Error('unreachable');
  const origin = normalizeOrigin(baseUrl, BROWSER_API_PATH, 'baseUrl', 'REMOTE_BROWSER_URL');
  warnIfInsecure(origin, 'baseUrl', 'REMOTE_BROWSER_URL');
  return { token, baseUrl: origin, proxyPassword };
}

export function resolveAccountConfig(
  input: AccountConfigInput = {},
  env: Env = process.env,
): AccountConfig {
  const apiKey = nonEmpty(input.apiKey) ?? nonEmpty(env.REMOTE_BROWSER_API_KEY);
  const baseUrl = nonEmpty(input.baseUrl) ?? nonEmpty(env.REMOTE_BROWSER_ACCOUNT_URL);
  registerSecret(apiKey);
  missing('account service', [
    !baseUrl &&
      'REMOTE_BROWSER_ACCOUNT_URL (or `baseUrl`): the account service origin; for a local emulator run `remote-browser emulator` and export the lines it prints',
    !apiKey &&
      'REMOTE_BROWSER_API_KEY (or `apiKey`): shown in the Profile section of the account dashboard',
  ]);
  if (!baseUrl || !apiKey) throw new Error('unreachable');
  const origin = normalizeOrigin(
    baseUrl,
    ACCOUNT_API_PATH,
    'baseUrl',
    'REMOTE_BROWSER_ACCOUNT_URL',
  );
  warnIfInsecure(origin, 'baseUrl', 'REMOTE_BROWSER_ACCOUNT_URL');
  return { apiKey, baseUrl: origin };
}
