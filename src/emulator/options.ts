/** Options of `startEmulator()`; every one has a default so `startEmulator()` just works. */
import { RequestValidationError } from '../http/index.js';
import type { AccountServiceOptions } from './account-service/account-options.js';
import { siteIssue } from './network/internet.js';
import type { RuntimeOptions } from './runtime/index.js';
import { type Isolation, RUNTIME_DEFAULT_ISOLATION } from './runtime/sandbox.js';
import { isLoopbackHost } from './server/own-origin.js';

export interface AccountLimits {
  /** Concurrent running sessions; default 50. A create beyond it is a 429 with `limit_type: 'sessions'`. */
  concurrentSessions: number;
  /** Saved profiles; default 10. A create beyond it is a 429 with `limit_type: 'profiles'`. */
  profiles: number;
  /** Maximum session lifetime in minutes; default 30. A request may ask for less, never more. */
  maxDurationMinutes: number;
  /** Minutes without CDP traffic or page actions before a session ends; default 10. A request may ask for less, never more. */
  idleTimeoutMinutes: number;
}

/** The network between the user and the service, as the emulator models it (docs/emulator.md). */
export interface NetworkOptions {
  /**
   * Round-trip time in ms added to every HTTP exchange, every websocket frame (half each way:
   * CDP, live view) and every new TCP connection (its handshake), on the emulator's origin and
   * on each session's `debugger_address`; default 0 (loopback as it is).
   */
  rttMs?: number;
  /**
   * The "flaky network" mode: the clients' websockets of one session (picked at random among
   * those with any) are cut at random intervals of this mean, in ms of real time; the sessions
   * keep running. For soak tests of reconnecting clients. Default off.
   */
  flaky?: { meanIntervalMs: number };
}

export type EmulatorLogger = (level: 'info' | 'warn' | 'error', message: string) => void;

export interface EmulatorOptions extends RuntimeOptions {
  /**
   * Interface to bind; default `127.0.0.1`. Only a loopback address (`127.0.0.1`, `::1`,
   * `localhost`) unless `expose` is true: the admin API has no auth.
   */
  host?: string;
  /**
   * Allow a `host` that is not loopback (`0.0.0.0`, a LAN address); default false. Anyone who
   * reaches that address gets the admin API without auth (accounts and their tokens, reset,
   * faults, clock), so the emulator says so on stderr and to the logger when it starts.
   */
  expose?: boolean;
  /** TCP port; default 0 (a free port, read it from the handle's `url`). */
  port?: number;
  /**
   * Emulator-clock delay between a session's end and its recordings appearing in
   * `GET /sessions/{id}/recordings`; default 3000 ms. Models the service's encode-and-upload step.
   */
  recordingPublicationDelayMs?: number;
  /** Limits of every new account unless `POST /_emulator/accounts` overrides them; defaults as on `AccountLimits`. */
  defaultLimits?: Partial<AccountLimits>;
  /** Serve location data; default true. `false` answers `/locations/*` with 503 `reason: 'locations_not_configured'`. */
  locations?: boolean;
  /** Where log lines go (already redacted); default: nowhere. */
  logger?: EmulatorLogger;
  /** How long an ended session (and its recordings) stays readable; default 3 days of emulator clock. */
  retentionMs?: number;
  /** Validity of a browser token; default 7 days of emulator clock. */
  tokenValidityMs?: number;
  /** Lifetime of a recording's signed `video_url`; default 10 minutes of emulator clock. */
  videoUrlLifetimeMs?: number;
  /** Credits of the default account (for the account service); default 1000. */
  defaultBalance?: number;
  /** The account service's behaviour (delays, failures, charges, limits); defaults in docs/account.md. */
  account?: AccountServiceOptions;
  /** A network between the clients and the emulator; default none (`{ rttMs: 0 }`). */
  network?: NetworkOptions;
  /**
   * How long a session create (`POST /sessions` and `/sessions-async`) takes at least, in ms,
   * modelling the real service's seconds-long start; the slot is held meanwhile. Default 0 (the
   * create takes as long as Chromium's launch).
   */
  sessionStartMs?: number;
  /**
   * How remote a session's browser is; default `'remote'`: it runs as on another machine (on
   * Linux in a bubblewrap sandbox): it reaches nothing of this machine (not its loopback, not
   * its other addresses), only the hosts of `internet` and `exit.test`, through its exit; it sees
   * none of this machine's files. Where no sandbox can be made it falls back to `'none'` with one
   * warning, and with `CI=true` it fails instead. `'none'` is NOT faithful: the browser runs on
   * this machine with its network and its disk, so a page reaches `localhost` and `file://`
   * shows local files, which no remote browser of the service can. docs/emulator.md, "How remote
   * the emulator is".
   */
  isolation?: Isolation;
  /**
   * The emulator's internet: host name → the local origin that serves it, e.g.
   * `{ 'shop.test': 'http://127.0.0.1:4000' }` (http or https targets; a self-signed https
   * target is accepted). With `isolation: 'remote'` these, and `exit.test`, are all a session's
   * browser can reach; more can be published at run time with `admin.publish()`. Default `{}`.
   */
  internet?: Record<string, string>;
  /**
   * Serve https and wss: `true` with a certificate from a CA made for this emulator (the
   * handle's `ca`), or `{ cert, key }` (PEM) of your own. `cdp_url` is then `wss://`, and
   * `live_view_url`, `video_url` are `https://`. Default `false` (http and ws).
   */
  tls?: boolean | { cert: string; key: string };
}

export interface ResolvedOptions {
  host: string;
  expose: boolean;
  port: number;
  recordingPublicationDelayMs: number;
  defaultLimits: AccountLimits;
  locations: boolean;
  logger: EmulatorLogger;
  retentionMs: number;
  tokenValidityMs: number;
  videoUrlLifetimeMs: number;
  defaultBalance: number;
  account: AccountServiceOptions;
  network: { rttMs: number; flaky?: { meanIntervalMs: number } };
  sessionStartMs: number;
  isolation: Isolation;
  internet: Record<string, string>;
  tls: false | true | { cert: string; key: string };
  runtime: RuntimeOptions;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export const DEFAULT_LIMITS: AccountLimits = {
  concurrentSessions: 50,
  profiles: 10,
  maxDurationMinutes: 30,
  idleTimeoutMinutes: 10,
};

export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  refuseUnknownKeys(options);
  // Everything that is not the control plane's own option belongs to the runtime.
  const {
    host,
    expose,
    port,
    recordingPublicationDelayMs,
    defaultLimits,
    locations,
    logger,
    retentionMs,
    tokenValidityMs,
    videoUrlLifetimeMs,
    defaultBalance,
    account,
    network,
    sessionStartMs,
    isolation,
    internet,
    tls,
    ...runtime
  } = options;
  return {
    host: boundHost(host, expose),
    expose: expose === true,
    port: portNumber(port),
    recordingPublicationDelayMs: recordingPublicationDelayMs ?? 3000,
    defaultLimits: { ...DEFAULT_LIMITS, ...defaultLimits },
    locations: locations ?? true,
    logger: logger ?? (() => {}),
    retentionMs: retentionMs ?? 3 * DAY,
    tokenValidityMs: tokenValidityMs ?? 7 * DAY,
    videoUrlLifetimeMs: videoUrlLifetimeMs ?? 10 * MINUTE,
    defaultBalance: defaultBalance ?? 1000,
    account: account ?? {},
    network: resolveNetwork(networkObject(network)),
    sessionStartMs: milliseconds('sessionStartMs', sessionStartMs),
    isolation: isolationMode(isolation),
    internet: internetSites(internet),
    tls: tlsOption(tls),
    runtime,
  };
}

/** Loopback unless `expose: true`: the admin API has no auth. */
function boundHost(host: unknown, expose: unknown): string {
  if (expose !== undefined && typeof expose !== 'boolean') {
    throw new RequestValidationError('startEmulator', [
      { path: 'expose', message: `must be a boolean (got ${typeof expose})` },
    ]);
  }
  if (host === undefined) return '127.0.0.1';
  if (typeof host !== 'string' || host === '') {
    throw new RequestValidationError('startEmulator', [
      { path: 'host', message: 'must be a non-empty string such as 127.0.0.1' },
    ]);
  }
  if (!isLoopbackHost(host) && expose !== true) {
    throw new RequestValidationError('startEmulator', [
      {
        path: 'host',
        message: `must be a loopback address (127.0.0.1, ::1, localhost), got ${host}: the admin API has no auth; pass expose: true (--expose) to bind it anyway`,
      },
    ]);
  }
  return host;
}

/** The warning an exposed emulator prints when it starts; undefined on loopback. */
export function exposureWarning(options: ResolvedOptions, origin: string): string | undefined {
  if (isLoopbackHost(options.host)) return undefined;
  return (
    `WARNING: the emulator is exposed on ${options.host} (${origin}): anyone who can reach it ` +
    'gets its admin API without auth (/_emulator: new accounts with their tokens, reset, ' +
    'faults, clock) and can run browser sessions on this machine'
  );
}

/**
 * Every option key `startEmulator()` knows, per object: a misspelt key (`tlz`) is refused, not
 * ignored. `isolation`, `internet` and `tls` belong to the network isolation work.
 */
const KNOWN_KEYS: Record<string, readonly string[]> = {
  '': [
    'host',
    'expose',
    'port',
    'recordingPublicationDelayMs',
    'defaultLimits',
    'locations',
    'logger',
    'retentionMs',
    'tokenValidityMs',
    'videoUrlLifetimeMs',
    'defaultBalance',
    'account',
    'network',
    'sessionStartMs',
    'isolation',
    'internet',
    'tls',
    // RuntimeOptions
    'chromiumPath',
    'ffmpegPath',
    'workDir',
    'actionTimeoutMs',
    'recordingFps',
    'launchTimeoutMs',
  ],
  network: ['rttMs', 'flaky'],
  'network.flaky': ['meanIntervalMs'],
  defaultLimits: ['concurrentSessions', 'profiles', 'maxDurationMinutes', 'idleTimeoutMinutes'],
  account: [
    'delay',
    'failureRate',
    'seed',
    'answers',
    'unavailableCountries',
    'chargePerLocation',
    'assistantC',
    'freeCreditsPerMonth',
    'rateLimits',
    'rotationWindowMs',
    'lowCreditThreshold',
    'deliveryTimeoutMs',
  ],
  'account.delay': ['minMs', 'maxMs'],
  'account.rateLimits': ['submit', 'read', 'windowMs'],
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(value));

/** Throws a RequestValidationError naming every key no option has (`tlz`, `network.rtt`). */
function refuseUnknownKeys(options: unknown): void {
  const issues: { path: string; message: string }[] = [];
  for (const [where, known] of Object.entries(KNOWN_KEYS)) {
    let value: unknown = options;
    for (const key of where === '' ? [] : where.split('.')) {
      value = isPlainObject(value) ? value[key] : undefined;
    }
    if (!isPlainObject(value)) continue;
    for (const key of Object.keys(value)) {
      if (known.includes(key)) continue;
      issues.push({
        path: where === '' ? key : `${where}.${key}`,
        message: `is not an option${where === '' ? '' : ` of ${where}`} (known: ${known.join(', ')})`,
      });
    }
  }
  if (issues.length > 0) throw new RequestValidationError('startEmulator', issues, 'options');
}

/** A TCP port: absent is 0 (a free one); a bad one is an error naming it, not a late RangeError. */
function portNumber(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535) {
    return value;
  }
  throw new RequestValidationError('startEmulator', [
    { path: 'port', message: `must be an integer from 0 to 65535 (got ${String(value)})` },
  ]);
}

function networkObject(value: unknown): NetworkOptions {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RequestValidationError('startEmulator', [
      { path: 'network', message: 'must be an object such as { rttMs: 100 }' },
    ]);
  }
  return value as NetworkOptions;
}

function resolveNetwork(network: NetworkOptions): ResolvedOptions['network'] {
  const rttMs = milliseconds('network.rttMs', network.rttMs);
  if (network.flaky === undefined) return { rttMs };
  const meanIntervalMs = (network.flaky as { meanIntervalMs?: unknown } | null)?.meanIntervalMs;
  if (
    typeof meanIntervalMs !== 'number' ||
    !(meanIntervalMs > 0) ||
    !Number.isFinite(meanIntervalMs)
  ) {
    throw new RequestValidationError('startEmulator', [
      {
        path: 'network.flaky.meanIntervalMs',
        message: `must be a finite number of milliseconds > 0 (got ${String(meanIntervalMs)})`,
      },
    ]);
  }
  return { rttMs, flaky: { meanIntervalMs } };
}

/** A duration option: absent is 0; anything but a finite number >= 0 is an error naming it. */
function milliseconds(field: string, value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RequestValidationError('startEmulator', [
      {
        path: field,
        message: `must be a finite number of milliseconds >= 0 (got ${String(value)})`,
      },
    ]);
  }
  return value;
}

function isolationMode(value: unknown): Isolation {
  if (value === undefined) return RUNTIME_DEFAULT_ISOLATION;
  if (value === 'remote' || value === 'none') return value;
  throw new RequestValidationError('startEmulator', [
    { path: 'isolation', message: `must be 'remote' or 'none' (got ${JSON.stringify(value)})` },
  ]);
}

function internetSites(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RequestValidationError('startEmulator', [
      {
        path: 'internet',
        message: "must be an object such as { 'shop.test': 'http://127.0.0.1:4000' }",
      },
    ]);
  }
  const issues = Object.entries(value)
    .map(([host, target]) => siteIssue(host, target))
    .filter((issue) => issue !== undefined)
    .map((issue) => ({ path: `internet.${issue.field}`, message: issue.message }));
  if (issues.length > 0) throw new RequestValidationError('startEmulator', issues);
  return { ...(value as Record<string, string>) };
}

function tlsOption(value: unknown): ResolvedOptions['tls'] {
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  const pair = value as { cert?: unknown; key?: unknown } | null;
  if (
    typeof pair === 'object' &&
    pair !== null &&
    typeof pair.cert === 'string' &&
    typeof pair.key === 'string'
  ) {
    return { cert: pair.cert, key: pair.key };
  }
  // Never echo the value: it may hold a private key.
  throw new RequestValidationError('startEmulator', [
    { path: 'tls', message: 'must be true, false or { cert, key } (PEM strings)' },
  ]);
}
