/**
 * Why a session stopped being usable, said in one line that names the session, the reason and
 * what to do. The spec has no reason field, so a service-side end is inferred from what
 * `GET /sessions/{id}` does say (`created_at`, `ended_at`) against the session's limits (the
 * launch's `idleTimeoutMinutes`/`maxDurationMinutes`, else the spec's defaults of 10 and 30
 * minutes) and the last CDP activity this process saw, put on the service's clock (for a
 * launched session: `created_at` plus the time from the create's answer to that activity, so a
 * skewed client clock does not matter; for one attached with `connectRemote()`, whose creation
 * this process did not see: the client's own clock):
 *
 * - lived its maximum duration (to within 5 s) → maximum lifetime;
 * - ended at least its idle limit (less 5 s) after the last activity seen → idle timeout;
 * - otherwise → deleted by another client (a script, the CLI, the dashboard);
 * - 404 → past retention (or unknown to this account).
 *
 * The lines hold ids, durations and advice only: never a token, a cdp_url or a password.
 */

/** Every reason a session's browser can go away without this process's close(). */
export type SessionEndReason =
  /** The connection dropped; the session still runs and is kept for the reconnect window. */
  | 'connection_lost'
  | 'idle_timeout'
  | 'max_duration'
  | 'deleted_elsewhere'
  /** 404: past its retention window, or not this account's. */
  | 'gone'
  /** Nobody re-attached within the reconnect window: the library ended it. */
  | 'window_passed'
  /** connectRemote() to a kept session failed. */
  | 'reattach_failed';

/** The `process.emitWarning` codes (stable: filter on them the Node way). */
export const SESSION_WARNING_CODES = {
  connection_lost: 'REMOTE_BROWSER_CONNECTION_LOST',
  ended: 'REMOTE_BROWSER_SESSION_ENDED',
  window_passed: 'REMOTE_BROWSER_RECONNECT_WINDOW_PASSED',
  reattach_failed: 'REMOTE_BROWSER_REATTACH_FAILED',
} as const;

/** What `sessionOf(browser).endReason` holds once the browser's session has gone away. */
export interface SessionEnd {
  readonly sessionId: string;
  readonly reason: SessionEndReason;
  /** The one line: the session, the reason, what to do. */
  readonly message: string;
  /** The warning code it was emitted with. */
  readonly code: string;
}

/** Limits in minutes that applied to the session; 0 or absent means the spec's default. */
export interface SessionLimits {
  idleTimeoutMinutes?: number | undefined;
  maxDurationMinutes?: number | undefined;
}

const DEFAULT_IDLE_MINUTES = 10;
const DEFAULT_MAX_MINUTES = 30;
const SLACK_MS = 5_000;
const MINUTE = 60_000;

const minutes = (value: number | undefined, fallback: number) =>
  value !== undefined && value > 0 ? value : fallback;

/** The service-side reason of an ended session, inferred as the module comment says. */
export function inferEndReason(
  session: { created_at: string; ended_at: string | null },
  limits: SessionLimits,
  /** The last activity seen, in epoch ms on the service's clock (see the module comment). */
  lastActivityMs: number,
): 'idle_timeout' | 'max_duration' | 'deleted_elsewhere' {
  const created = Date.parse(session.created_at);
  const ended = session.ended_at === null ? Number.NaN : Date.parse(session.ended_at);
  if (!Number.isFinite(created) || !Number.isFinite(ended)) return 'deleted_elsewhere';
  const maxMs = minutes(limits.maxDurationMinutes, DEFAULT_MAX_MINUTES) * MINUTE;
  const idleMs = minutes(limits.idleTimeoutMinutes, DEFAULT_IDLE_MINUTES) * MINUTE;
  if (Math.abs(ended - created - maxMs) <= SLACK_MS) return 'max_duration';
  if (ended - lastActivityMs >= idleMs - SLACK_MS) return 'idle_timeout';
  return 'deleted_elsewhere';
}

/** The one line for `reason`, and its warning code. */
export function describeEnd(
  sessionId: string,
  reason: SessionEndReason,
  detail: { limits?: SessionLimits; windowMs?: number; error?: string } = {},
): SessionEnd {
  const limits = detail.limits ?? {};
  const idle = minutes(limits.idleTimeoutMinutes, DEFAULT_IDLE_MINUTES);
  const max = minutes(limits.maxDurationMinutes, DEFAULT_MAX_MINUTES);
  const window = `${Math.round((detail.windowMs ?? 0) / 1000)} s`;
  const ended = (why: string, todo: string) => ({
    message: `remote-browser: session ${sessionId} ended by the service: ${why}; ${todo}`,
    code: SESSION_WARNING_CODES.ended,
  });
  const line = {
    connection_lost: {
      message:
        `remote-browser: session ${sessionId}: the connection dropped, the session is still running; ` +
        `it is kept for ${window}: re-attach with connectRemote('${sessionId}') (the id from sessionOf(browser)), ` +
        'or it is ended then',
      code: SESSION_WARNING_CODES.connection_lost,
    },
    idle_timeout: ended(
      `idle timeout (${idle} min)`,
      'keep the browser busy, or raise idleTimeoutMinutes (up to the account limit)',
    ),
    max_duration: ended(
      `maximum lifetime (${max} min)`,
      'raise maxDurationMinutes (up to the account limit) or split the work across sessions',
    ),
    deleted_elsewhere: ended(
      'deleted by another client',
      'check other scripts, `remote-browser sessions end` or the dashboard for who ended it',
    ),
    gone: ended(
      'no longer known to the service (past its retention, or not this account)',
      'launch a new session',
    ),
    window_passed: {
      message:
        `remote-browser: session ${sessionId}: nobody re-attached within ${window} after the connection dropped, ` +
        'so it was ended; re-attach sooner with connectRemote(id), or raise reconnectWindowMs',
      code: SESSION_WARNING_CODES.window_passed,
    },
    reattach_failed: {
      message:
        `remote-browser: session ${sessionId}: re-attaching failed (${detail.error ?? 'unknown error'}); ` +
        'the session is ended; launch a new one',
      code: SESSION_WARNING_CODES.reattach_failed,
    },
  }[reason];
  return { sessionId, reason, ...line };
}

/** Emits the line as a `RemoteBrowserWarning` with its code. */
export function warnEnd(end: SessionEnd): void {
  process.emitWarning(end.message, { type: 'RemoteBrowserWarning', code: end.code });
}
