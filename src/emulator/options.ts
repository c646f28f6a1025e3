/** Options of `startEmulator()`; every one has a default so `startEmulator()` just works. */
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
    ...runtime
  } = options;
  return {
    host: host ?? '127.0.0.1',
    port: port ?? 0,
    recordingPublicationDelayMs: recordingPublicationDelayMs ?? 3000,
    defaultLimits: { ...DEFAULT_LIMITS, ...defaultLimits },
    locations: locations ?? true,
    logger: logger ?? (() => {}),
    retentionMs: retentionMs ?? 3 * DAY,
    tokenValidityMs: tokenValidityMs ?? 7 * DAY,
    videoUrlLifetimeMs: videoUrlLifetimeMs ?? 10 * MINUTE,
    defaultBalance: defaultBalance ?? 1000,
    account: account ?? {},
    runtime,
  };
}
