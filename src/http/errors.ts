/**
 * Every error this library throws. Messages are cut to 8 KB (`MAX_MESSAGE_LENGTH`) and redacted
 * when built, and stay redacted under `util.inspect`, `console.log` and `JSON.stringify` (the
 * `body` of an API error is what the service sent, which may echo a request).
 */
import type { inspect } from 'node:util';
import { INSPECT_CUSTOM, nodeUtil } from './node-builtins.js';
import { redact, redactMessage, redactValue } from './redact.js';

export class RemoteBrowserError extends Error {
  override name = 'RemoteBrowserError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(redactMessage(message), options);
  }

  /**
   * The fields `util.inspect` and `toJSON` show besides name, message and stack: a subclass's
   * own fields that are set.
   */
  protected details(): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(this).filter(([key, value]) => key !== 'name' && value !== undefined),
    );
  }

  toJSON(): Record<string, unknown> {
    const shown: Record<string, unknown> = { name: this.name, message: this.message };
    return redactValue({ ...shown, ...this.details() }) as typeof shown;
  }

  [INSPECT_CUSTOM](
    depth: number,
    options: object,
    inspectFn: typeof inspect = nodeUtil().inspect,
  ): string {
    const stack = redact(this.stack ?? `${this.name}: ${this.message}`);
    const details = this.details();
    if (this.cause !== undefined) details.cause = this.cause;
    if (Object.keys(details).length === 0) return stack;
    const shown = inspectFn(details, { ...options, depth: Math.max(depth, 0) });
    return `${stack} ${redact(shown)}`;
  }
}

/** A response with an error status. `path` is the request path without the query string. */
export class ApiError extends RemoteBrowserError {
  override name = 'ApiError';
  readonly status: number;
  readonly method: string;
  readonly path: string;
  /** The parsed error body the service sent (redacted when printed). */
  readonly body: unknown;
  /** The service's request id header, when it sent one: quote it to support. */
  readonly requestId: string | undefined;

  constructor(init: ApiErrorInit) {
    super(`${init.method} ${init.path} → ${init.status}: ${init.message}`, { cause: init.cause });
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.body = init.body;
    this.requestId = init.requestId;
  }
}

export interface ApiErrorInit {
  status: number;
  method: string;
  path: string;
  message: string;
  body: unknown;
  requestId?: string | undefined;
  cause?: unknown;
}

/** 400. `fieldErrors` holds the per-field messages of bodies shaped `{field: [messages]}`. */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
  readonly fieldErrors: Readonly<Record<string, readonly string[]>> | undefined;

  constructor(init: ApiErrorInit & { fieldErrors?: Record<string, string[]> | undefined }) {
    super(init);
    this.fieldErrors = init.fieldErrors;
  }
}

/** 401 */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}

/** 402: `required` and `available` credits, parsed from the service's message when it states them. */
export class PaymentRequiredError extends ApiError {
  override name = 'PaymentRequiredError';
  readonly required: number | undefined;
  readonly available: number | undefined;

  constructor(
    init: ApiErrorInit & { required?: number | undefined; available?: number | undefined },
  ) {
    super(init);
    this.required = init.required;
    this.available = init.available;
  }
}

/** 403 */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}

/** 404 */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

/** 409 */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}

/** 429: which limit was hit, how far, and how long the service asks to wait. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
  /** e.g. the session or profile limit (`limit_type`); undefined for plain request-rate limits. */
  readonly limitType: string | undefined;
  readonly currentUsage: number | undefined;
  readonly limit: number | undefined;
  /** From the `Retry-After` header, else the body's `retry_after`. */
  readonly retryAfterMs: number | undefined;

  constructor(
    init: ApiErrorInit & {
      limitType?: string | undefined;
      currentUsage?: number | undefined;
      limit?: number | undefined;
      retryAfterMs?: number | undefined;
    },
  ) {
    super(init);
    this.limitType = init.limitType;
    this.currentUsage = init.currentUsage;
    this.limit = init.limit;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 502: the browser, page or proxy upstream did not answer for this call. */
export class UpstreamError extends ApiError {
  override name = 'UpstreamError';
}

/** 503: a feature is temporarily off; `reason` and `retryAfterMs` when the service gives them. */
export class ServiceUnavailableError extends ApiError {
  override name = 'ServiceUnavailableError';
  readonly reason: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(
    init: ApiErrorInit & { reason?: string | undefined; retryAfterMs?: number | undefined },
  ) {
    super(init);
    this.reason = init.reason;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** Any other 5xx. */
export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
}

/** The request never got a response: refused, reset, dropped. */
export class ConnectionError extends RemoteBrowserError {
  override name = 'ConnectionError';
  /**
   * False when the failure happened before the request left (refused, DNS): the service never
   * saw it. True when it may have been received and acted on (a reset or drop mid-call), so a
   * non-idempotent call must be reconciled rather than repeated.
   */
  readonly requestSent: boolean;
  /** What to change when the configured URL is the cause (already part of the message). */
  readonly hint: string | undefined;

  constructor(
    message: string,
    options: { cause?: unknown; requestSent: boolean; hint?: string | undefined },
  ) {
    super(message, { cause: options.cause });
    this.requestSent = options.requestSent;
    this.hint = options.hint;
  }

  protected override details(): Record<string, unknown> {
    return { requestSent: this.requestSent };
  }
}

/** The call's `timeout` elapsed. */
export class TimeoutError extends RemoteBrowserError {
  override name = 'TimeoutError';
}

/** The caller's `signal` aborted the call. */
export class AbortError extends RemoteBrowserError {
  override name = 'AbortError';
}

/** A response arrived but does not have the documented shape. Not an ApiError: the status was fine. */
export class ResponseValidationError extends RemoteBrowserError {
  override name = 'ResponseValidationError';
  /** Dotted path of the first offending field, e.g. `data.cdp_url`. */
  readonly field: string;
  readonly issues: readonly { path: string; message: string }[];

  constructor(what: string, issues: { path: string; message: string }[]) {
    const first = issues[0] ?? { path: '', message: 'invalid' };
    super(
      `${what}: the response does not match the documented shape: field "${first.path || '(root)'}" ${first.message}` +
        (issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''),
    );
    this.field = first.path;
    this.issues = issues;
  }
}

/**
 * A response body longer than this client accepts: a JSON body over the client's
 * `maxResponseBytes`, or a download over its `maxBytes`. The rest is not read.
 */
export class ResponseTooLargeError extends RemoteBrowserError {
  override name = 'ResponseTooLargeError';
  /** The limit that was passed, in bytes. */
  readonly limitBytes: number;

  constructor(what: string, limitBytes: number, option: string) {
    super(
      `${what}: the response body is larger than ${limitBytes} bytes (the \`${option}\` limit); the rest was not read`,
    );
    this.limitBytes = limitBytes;
  }
}

/** Input rejected on this side, before any request: nothing was sent, nothing was charged. */
export class RequestValidationError extends RemoteBrowserError {
  override name = 'RequestValidationError';
  readonly field: string;
  readonly issues: readonly { path: string; message: string }[];

  /** `kind` words what was rejected: the call's input (default) or a constructor's options. */
  constructor(
    what: string,
    issues: { path: string; message: string }[],
    kind: 'request' | 'options' = 'request',
  ) {
    const text = issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ');
    super(`${what}: invalid ${kind}: ${text}`);
    this.field = issues[0]?.path ?? '';
    this.issues = issues;
  }
}

/** A missing or malformed setting (credential, URL). Names the option and the env var. */
export class ConfigurationError extends RemoteBrowserError {
  override name = 'ConfigurationError';
}

/** `instanceof`, or the same `name` (an error from another copy of this package). */
export function guard<T extends Error>(cls: abstract new (...args: never[]) => T, name: string) {
  return (error: unknown): error is T => {
    if (error instanceof cls) return true;
    if (!(error instanceof Error)) return false;
    // Subclasses count too: walk the prototype chain's names.
    let p = Object.getPrototypeOf(error);
    for (; p && p !== Error.prototype; p = Object.getPrototypeOf(p)) {
      if ((p.constructor as { name?: string }).name === name) return true;
    }
    return error.name === name;
  };
}

export const isRemoteBrowserError = guard(RemoteBrowserError, 'RemoteBrowserError');
export const isApiError = guard(ApiError, 'ApiError');
export const isBadRequestError = guard(BadRequestError, 'BadRequestError');
export const isAuthenticationError = guard(AuthenticationError, 'AuthenticationError');
export const isPaymentRequiredError = guard(PaymentRequiredError, 'PaymentRequiredError');
export const isPermissionDeniedError = guard(PermissionDeniedError, 'PermissionDeniedError');
export const isNotFoundError = guard(NotFoundError, 'NotFoundError');
export const isConflictError = guard(ConflictError, 'ConflictError');
export const isRateLimitError = guard(RateLimitError, 'RateLimitError');
export const isUpstreamError = guard(UpstreamError, 'UpstreamError');
export const isServiceUnavailableError = guard(ServiceUnavailableError, 'ServiceUnavailableError');
export const isConnectionError = guard(ConnectionError, 'ConnectionError');
export const isTimeoutError = guard(TimeoutError, 'TimeoutError');
export const isAbortError = guard(AbortError, 'AbortError');
export const isResponseValidationError = guard(ResponseValidationError, 'ResponseValidationError');
export const isResponseTooLargeError = guard(ResponseTooLargeError, 'ResponseTooLargeError');
export const isRequestValidationError = guard(RequestValidationError, 'RequestValidationError');
export const isConfigurationError = guard(ConfigurationError, 'ConfigurationError');
