/** The one retry policy of both API clients. */

export interface RetryOptions {
  /** How many times a failed idempotent request is tried again. Default 2 (3 attempts in all). */
  retries?: number;
  /** First backoff step in ms when the response gives no Retry-After. Default 500. */
  baseDelayMs?: number;
  /** Largest backoff step in ms. Default 8000. */
  maxDelayMs?: number;
  /**
   * Longest Retry-After the client will honour, in ms. Default 60000. A response that asks for a
   * longer wait is not retried: the error is thrown at once, carrying its `retryAfterMs`.
   */
  maxRetryAfterMs?: number;
}

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'PUT',
  'DELETE',
  'OPTIONS',
]);

export const DEFAULT_RETRY: Required<RetryOptions> = {
  retries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
};

/**
 * How a backoff step is randomised (AWS architecture blog's names): `full` anywhere in
 * [0, step], `equal` in [step/2, step] (never close to zero).
 */
export type Jitter = 'full' | 'equal';

/** A named set of retry settings: the requests' default, or a special wait such as SLOT_WAIT. */
export interface RetryProfile extends Required<RetryOptions> {
  /** Default: `full`. */
  jitter?: Jitter;
}

/**
 * The wait for a free session slot after a 429 on create (launchRemote's `waitForSlot`): no
 * retry count, because the launch's own deadline and signal bound it; Retry-After honoured at
 * any length for the same reason; without one, 1 s doubling to 15 s with equal jitter, so a
 * queued launch never asks the service again in a tight loop.
 */
export const SLOT_WAIT: RetryProfile = {
  retries: Number.POSITIVE_INFINITY,
  baseDelayMs: 1000,
  maxDelayMs: 15_000,
  maxRetryAfterMs: Number.POSITIVE_INFINITY,
  jitter: 'equal',
};

/**
 * How long to wait before attempt `attempt + 1` (attempt counts from 0), or undefined when the
 * request must not be retried. Retry-After is authoritative when present; otherwise
 * exponential backoff with the profile's jitter.
 */
export function retryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  options: RetryProfile,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= options.retries) return undefined;
  if (retryAfterMs !== undefined) {
    return retryAfterMs > options.maxRetryAfterMs ? undefined : retryAfterMs;
  }
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  const share = options.jitter === 'equal' ? 0.5 + random() / 2 : random();
  return Math.round(share * ceiling);
}

/**
 * Connection errors raised before the request could reach the server: retrying them is safe
 * even for a POST, because the service never saw it.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  // A TLS handshake that failed (https:// against a plain-HTTP server): no request was written.
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
]);

export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function wasNeverSent(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && NOT_SENT_CODES.has(code);
}

/** What one attempt ended with, as the retry step reads it. */
export interface AttemptEnd {
  /** The response's status; undefined when there was none (a connection error). */
  status?: number | undefined;
  /** For a connection error: whether it provably never reached the service (`wasNeverSent`). */
  neverSent?: boolean | undefined;
  /** The response's Retry-After, in ms. */
  retryAfterMs?: number | undefined;
}

/**
 * The retry step: how long to wait before attempt `attempt + 1`, or undefined to give up. A
 * connection error is retried when the call is idempotent or never left; an error status when
 * it is retryable (RETRYABLE_STATUSES) and the call idempotent, or the status one with which
 * the service says it did nothing (`unprocessed`: the account service's 429).
 */
export function nextRetryDelay(
  end: AttemptEnd,
  attempt: number,
  call: { idempotent: boolean; unprocessed: ReadonlySet<number>; policy: RetryProfile },
): number | undefined {
  const { status } = end;
  if (status === undefined) {
    return call.idempotent || end.neverSent
      ? retryDelay(attempt, undefined, call.policy)
      : undefined;
  }
  const safe = call.idempotent || call.unprocessed.has(status);
  return safe && RETRYABLE_STATUSES.has(status)
    ? retryDelay(attempt, end.retryAfterMs, call.policy)
    : undefined;
}
