/**
 * The error a route throws to answer with the service's flat error shape `{ error, ...extra }`.
 * Messages are written by the emulator itself and never include a credential.
 */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get body(): Record<string, unknown> {
    return { error: this.message, ...this.extra };
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message: string) => new HttpError(401, message);
export const notFound = (what: string) => new HttpError(404, `${what} not found`);
export const conflict = (message: string) => new HttpError(409, message);

/** 429 with the machine-readable fields clients use to wait instead of failing. */
export function limitReached(
  limitType: 'sessions' | 'profiles',
  currentUsage: number,
  limit: number,
  retryAfterSeconds: number,
  message: string,
): HttpError {
  return new HttpError(
    429,
    message,
    { limit_type: limitType, current_usage: currentUsage, limit, retry_after: retryAfterSeconds },
    { 'retry-after': String(retryAfterSeconds) },
  );
}

/** 503 for a feature that is off; `retry_after` in seconds, mirrored in `Retry-After`. */
export function unavailable(reason: string, retryAfterSeconds: number, message: string): HttpError {
  return new HttpError(
    503,
    message,
    { reason, retry_after: retryAfterSeconds },
    { 'retry-after': String(retryAfterSeconds) },
  );
}
