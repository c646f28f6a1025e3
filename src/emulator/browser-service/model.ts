/** The records the emulator keeps in memory. Times are emulator-clock ms since the epoch. */
import type { z } from 'zod';
import type { SessionConfigSchema } from '../../browser-api/schemas/sessions.js';
import type { AccountRecord } from '../account-service/types.js';
import type { ClockTimer } from '../clock.js';
import type { AccountLimits } from '../options.js';
import type { DebuggerAddress, RecordingFile, RunningBrowser } from '../runtime/index.js';
import type { ExitIdentity } from '../runtime/types.js';

/** An account; the account service reads and moves its part (`AccountRecord`: key, purchase, credits). */
export interface Account extends AccountRecord {
  /** The proxy user that prefixes every proxy username (shown in the validate preview only). */
  proxyUser: string;
  proxyPassword: string;
  limits: AccountLimits;
  createdAt: number;
  /** Most sessions of the account running at once since it was made (or the last reset). */
  peakRunningSessions: number;
}

export interface TokenRecord {
  accountId: string;
  issuedAt: number;
}

/**
 * Resolved targeting of a session: the `config` object of the spec, as the client's
 * `SessionConfigSchema` reads it, with the keys the emulator always fills made required.
 */
export type SessionConfig = z.input<typeof SessionConfigSchema> & {
  country?: string;
  region?: string;
  city?: string;
  zip?: string;
  isp?: string;
  protocol: string;
  connection_type: string;
  session_type: string;
  filter_mode: string;
  quality_filter_enabled: boolean;
  ipv4_only: boolean;
  profile_name: string | null;
  profile_id: string | null;
};

export interface SessionRecord {
  id: string;
  accountId: string;
  status: 'running' | 'ended';
  createdAt: number;
  endedAt: number | null;
  /** Why it ended: `deleted`, `idle_timeout`, `max_duration`, `browser_exited`, `emulator_reset`. */
  endReason?: string;
  config: SessionConfig;
  /** Secret inside `cdp_url`; checked by the CDP proxy resolver. */
  accessToken: string;
  /** Secret inside `live_view_url` (`?token=`); checked by the live view's resolver. */
  liveViewToken: string;
  browser?: RunningBrowser;
  profileId?: string;
  idleMs: number;
  maxMs: number;
  lastActivityAt: number;
  timers: ClockTimer[];
  debuggerEndpoint?: Promise<DebuggerAddress>;
  /**
   * Set once the end has started, so every path that ends a session shares one end; resolves
   * when Chromium is gone (what a DELETE waits for).
   */
  ending?: Promise<void>;
  /**
   * Set with `ending`: the recording (if any), encoded and put in the store by the first
   * `publish()` (a listing due to show it), or its frames dropped by the first `discard()` (a
   * reset, a close, retention). The first call decides; both resolve after `ending`.
   */
  recording?: { publish(): Promise<void>; discard(): Promise<void> };
}

export interface RecordingRecord {
  id: string;
  sessionId: string;
  accountId: string;
  isPrimary: boolean;
  file: RecordingFile;
  /** Listed from this instant on (end + publication delay). */
  publishedAt: number;
}

/** Where a `pin_ip` profile's exit is: its exit identity less the address and session type. */
export type PinnedLocation = Omit<ExitIdentity, 'ip' | 'session_type'>;

export interface ProfileRecord {
  id: string;
  accountId: string;
  name: string;
  description: string;
  createdAt: number;
  pinIp: boolean;
  storeCache: boolean;
  pinned?: PinnedLocation;
  /** Persistent Chromium user-data dir when `storeCache`; created on first use. */
  userDataDir?: string;
}

export interface AsyncCreateRecord {
  id: string;
  accountId: string;
  createdAt: number;
  status: 'pending' | 'completed' | 'failed';
  sessionId?: string;
  error?: string;
  errorStatus?: number;
}
