/**
 * The one home of an emulator route's error answer, for both services: the browser service's
 * flat helpers first, then the account service's worded ones (`account*`, by their body shape).
 */
import type { RouteHandler } from './router.js';

/**
 * The one error a route of either service throws to answer with an error status: by default
 * the browser service's flat shape `{ error, ...extra }`; `HttpError.worded()` carries a body a
 * service words its own way (the account service's `{field: [messages]}`, `{detail}`).
 * Messages are written by the emulator itself and never include a credential.
 */
export class HttpError extends Error {
  override name = 'HttpError';
  #worded: { body: unknown } | undefined;

  /** An answer whose whole body the service chose; the server leaves it as it is. */
  static worded(status: number, body: unknown, headers: Record<string, string> = {}): HttpError {
    const error = new HttpError(status, `HTTP ${status}`, {}, headers);
    error.#worded = { body };
    return error;
  }

  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get body(): unknown {
    return this.#worded ? this.#worded.body : { error: this.message, ...this.extra };
  }

  /** Whether the body was worded by the service (else a module may reword the flat one). */
  get isWorded(): boolean {
    return this.#worded !== undefined;
  }
}

/**
 * Wraps a route handler so a thrown `HttpError` becomes its reply inside the handler: for a
 * service that must answer on any router (the account service on a bare test server), not only
 * behind the emulator's server, which maps errors the same way.
 */
export function answeringErrors(handler: RouteHandler): RouteHandler {
  return async (ctx) => {
    try {
      return await handler(ctx);
    } catch (error) {
      if (error instanceof HttpError) {
        return { status: error.status, body: error.body, headers: error.headers };
      }
      throw error;
    }
  };
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

// The account service's answers, which differ from the browser service's flat `{error}`: 400
// is `{field: [messages]}`, 401 and 403 are `{detail}`, 402/404/429 are `{error}`.

/** An answer of the account service: its status, and its body as the service words it. */
const worded = (status: number, body: unknown, headers?: Record<string, string>) =>
  HttpError.worded(status, body, headers);

/** The account service's 400 body: the messages of each field. */
export type FieldErrors = Record<string, string[]>;

export function addFieldError(errors: FieldErrors, field: string, message: string): void {
  const list = errors[field] ?? [];
  if (!list.includes(message)) list.push(message);
  errors[field] = list;
}

export const accountBadRequest = (errors: FieldErrors) => worded(400, errors);

/** The 401 body: `{detail}` naming the expected scheme, never echoing what was sent. */
export const accountUnauthorized = () =>
  worded(
    401,
    {
      detail:
        'Authentication credentials were not provided or are invalid. Send the header "Authorization: x-api-key <API_KEY>" with the key from the Profile section of the dashboard.',
    },
    { 'www-authenticate': 'x-api-key' },
  );

export const notPurchased = () =>
  worded(403, {
    detail:
      'The query service requires at least one completed credit-pack purchase on this account.',
  });

export const accountNotFound = () => worded(404, { error: 'Not found' });

export const insufficientCredits = (required: number, available: number) =>
  worded(402, {
    error: `Insufficient credits: ${required} required, ${available} available.`,
  });

export const rateLimited = (what: string, limit: number, retryAfterSeconds: number) =>
  worded(
    429,
    {
      error: `Rate limit exceeded: at most ${limit} ${what} requests per minute. Retry after ${retryAfterSeconds} s.`,
      retry_after: retryAfterSeconds,
    },
    { 'retry-after': String(retryAfterSeconds) },
  );
