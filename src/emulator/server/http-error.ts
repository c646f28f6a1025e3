/**
 * The emulator's one error answer, for both services and the server itself: a route throws an
 * `HttpError` (what went wrong: status, message, machine-readable fields); the server turns it
 * into the body of the service the path is under with that service's `ErrorWording` (the
 * browser service's flat `{ error, ...extra }` by default). Messages are written by the emulator
 * itself and never include a credential.
 */

/** The account service's 400 body: the messages of each field. */
export type FieldErrors = Record<string, string[]>;

export interface HttpErrorDetails {
  /** Fields of the body beside the message (`limit_type`, `retry_after`, ...). */
  extra?: Record<string, unknown>;
  /** Response headers (`retry-after`, `www-authenticate`). */
  headers?: Record<string, string>;
  /** Per-field messages of a 400, for a service that words them so. */
  fields?: FieldErrors;
}

export class HttpError extends Error {
  override name = 'HttpError';
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly fields: FieldErrors | undefined;

  constructor(
    readonly status: number,
    message: string,
    details: HttpErrorDetails = {},
  ) {
    super(message);
    this.extra = details.extra ?? {};
    this.headers = details.headers ?? {};
    this.fields = details.fields;
  }
}

/** How a service words an error as its response body. */
export type ErrorWording = (error: HttpError) => unknown;

/** The one answer of an error: its status and headers, its body in the service's wording. */
export function errorReply(error: HttpError, wording: ErrorWording = flatWording) {
  return { status: error.status, headers: error.headers, body: wording(error) };
}

/** The browser service's shape, and the default: `{ error, ...extra }`. */
export const flatWording: ErrorWording = (error) => ({ error: error.message, ...error.extra });

/**
 * The account service's shape: a 400 is `{field: [messages]}` (`non_field_errors` when no
 * field is to blame), a 401 or 403 is `{detail}`, the rest `{ error, ...extra }`.
 */
export const accountWording: ErrorWording = (error) => {
  if (error.status === 400) {
    return error.fields ? byInnermostField(error.fields) : { non_field_errors: [error.message] };
  }
  if (error.status === 401 || error.status === 403) return { detail: error.message };
  return flatWording(error);
};

/**
 * Messages keyed by a field path (`locations.0.country`, `questions.3`) under the innermost
 * named field (`country`, `questions`): the account service's flat keys, the spec's `country`
 * for a location's country. A message moved to a shorter key starts with its full path.
 */
function byInnermostField(fields: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, messages] of Object.entries(fields)) {
    const field =
      path
        .split('.')
        .filter((s) => !/^\d+$/.test(s))
        .at(-1) ?? 'non_field_errors';
    for (const m of messages) addFieldError(out, field, field === path ? m : `${path} ${m}`);
  }
  return out;
}

/** Adds `message` to `field`'s list once. */
export function addFieldError(errors: FieldErrors, field: string, message: string): void {
  const list = errors[field] ?? [];
  if (!list.includes(message)) list.push(message);
  errors[field] = list;
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message: string) => new HttpError(401, message);
export const notFound = (what: string) => new HttpError(404, `${what} not found`);
export const conflict = (message: string) => new HttpError(409, message);

/** An error to retry later: `retry_after` (seconds) last in the body, mirrored in `Retry-After`. */
function retryLater(status: number, message: string, seconds: number, extra = {}): HttpError {
  return new HttpError(status, message, {
    extra: { ...extra, retry_after: seconds },
    headers: { 'retry-after': String(seconds) },
  });
}

/** 429 with the machine-readable fields clients use to wait instead of failing. */
export function limitReached(
  limitType: 'sessions' | 'profiles',
  currentUsage: number,
  limit: number,
  retryAfterSeconds: number,
  message: string,
): HttpError {
  const extra = { limit_type: limitType, current_usage: currentUsage, limit };
  return retryLater(429, message, retryAfterSeconds, extra);
}

/** 503 for a feature that is off. */
export const unavailable = (reason: string, retryAfterSeconds: number, message: string) =>
  retryLater(503, message, retryAfterSeconds, { reason });

// The account service's own errors (worded by `accountWording`).

/** The 401: names the expected scheme, never echoes what was sent. */
export const accountUnauthorized = () =>
  new HttpError(
    401,
    'Authentication credentials were not provided or are invalid. Send the header "Authorization: x-api-key <API_KEY>" with the key from the Profile section of the dashboard.',
    { headers: { 'www-authenticate': 'x-api-key' } },
  );

export const notPurchased = () =>
  new HttpError(
    403,
    'The query service requires at least one completed credit-pack purchase on this account.',
  );

export const accountNotFound = () => new HttpError(404, 'Not found');

export const insufficientCredits = (required: number, available: number) =>
  new HttpError(402, `Insufficient credits: ${required} required, ${available} available.`);

export const rateLimited = (what: string, limit: number, retryAfterSeconds: number) =>
  retryLater(
    429,
    `Rate limit exceeded: at most ${limit} ${what} requests per minute. Retry after ${retryAfterSeconds} s.`,
    retryAfterSeconds,
  );
