/**
 * A session pool as its users see it: its options, checked before any session is launched,
 * its stats, and the pool object `createSessionPool()` returns (session-pool.ts is the pool).
 */
import { RequestValidationError } from '../http/errors.js';
import type { BudgetOptions } from './budget.js';

export interface SessionPoolOptions {
  /** Sessions kept warm (launched and connected, not yet handed out). Default: 1. */
  size?: number;
  /**
   * A warm session older than this (ms since its launch began) is ended and replaced instead of
   * handed out. Default: half of `idleTimeoutMinutes`, or 5 minutes (half the service's
   * default 10-minute idle timeout).
   */
  maxWarmAgeMs?: number;
  /**
   * A warm session idle (unused since its launch finished) for at least this long is checked
   * with the service (`GET /sessions/{id}`) before it is handed out, and replaced if the service
   * has ended it; a fresher one is handed out without the round trip. 0 checks every one.
   * Default: 30 000 (30 s).
   */
  checkWarmAfterMs?: number;
  /**
   * The pool's own budget (its warm and on-demand sessions, counted in this process): a launch
   * past it fails with BudgetExceededError before any request, warming stops, and its running
   * sessions are ended when `sessionMinutes` are spent. Default: none.
   */
  budget?: BudgetOptions;
}

export interface SessionPoolStats {
  /** Sessions the pool launched (warm or on demand). */
  created: number;
  /** Sessions handed out by `launch()`. */
  handedOut: number;
  /** Warm sessions ended unused (too old, dead, or at `close()`). */
  discarded: number;
  /** Browsers handed out (or kept warm) on a session re-attached after its connection dropped. */
  reattached: number;
  /** Warm (or warming) sessions now. */
  warm: number;
}

/** Default of `checkWarmAfterMs`. */
export const DEFAULT_CHECK_WARM_AFTER_MS = 30_000;

/** Checks pool options before any session is launched; returns the effective values. */
export function checkPoolOptions(
  what: string,
  options: SessionPoolOptions & { idleTimeoutMinutes?: number | undefined },
): { size: number; maxWarmAgeMs: number; checkWarmAfterMs: number } {
  const issues: { path: string; message: string }[] = [];
  const { size = 1, maxWarmAgeMs, checkWarmAfterMs = DEFAULT_CHECK_WARM_AFTER_MS } = options;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) {
    issues.push({ path: 'size', message: `must be a whole number >= 1, got ${String(size)}` });
  }
  if (
    maxWarmAgeMs !== undefined &&
    (typeof maxWarmAgeMs !== 'number' || !Number.isFinite(maxWarmAgeMs) || maxWarmAgeMs <= 0)
  ) {
    issues.push({
      path: 'maxWarmAgeMs',
      message: `must be a finite number of ms > 0, got ${String(maxWarmAgeMs)}`,
    });
  }
  if (
    typeof checkWarmAfterMs !== 'number' ||
    !Number.isFinite(checkWarmAfterMs) ||
    checkWarmAfterMs < 0
  ) {
    issues.push({
      path: 'checkWarmAfterMs',
      message: `must be a finite number of ms >= 0, got ${String(checkWarmAfterMs)}`,
    });
  }
  if (issues.length) throw new RequestValidationError(what, issues);
  const idleMinutes =
    typeof options.idleTimeoutMinutes === 'number' && options.idleTimeoutMinutes > 0
      ? options.idleTimeoutMinutes
      : 10;
  return { size, maxWarmAgeMs: maxWarmAgeMs ?? (idleMinutes * 60_000) / 2, checkWarmAfterMs };
}

/** What `createSessionPool()` returns. */
export interface RemoteSessionPool<B> {
  /** A browser on a warm session (or a normal launch when none is warm); close() it as usual. */
  launch(): Promise<B>;
  /** Ends every warm session and stops refilling; browsers already handed out are the caller's. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
  readonly stats: SessionPoolStats;
}
