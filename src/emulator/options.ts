/** Options of `startEmulator()`; every one has a default so `startEmulator()` just works. */
import { RequestValidationError } from '../http/index.js';
import type { AccountServiceOptions } from './account-service/options.js';
import type { RuntimeOptions } from './runtime/index.js';

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
  /** Interface to bind; default `127.0.0.1`. The admin API has no auth, so keep it on loopback. */
  host?: string;
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
}

export interface ResolvedOptions {
  host: string;
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
  // Everything that is not the control plane's own option belongs to the runtime.
  const {
    host,
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
    ...runtime
  } = options;
  return {
    host: host ?? '127.0.0.1',
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
    runtime,
  };
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
