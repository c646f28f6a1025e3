/** The one place where an HTTP error response becomes an error class. */
import {
  ApiError,
  type ApiErrorInit,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  UpstreamError,
} from './errors.js';
import { cutForMessage } from './redact.js';
import { parseRetryAfter, parseRetryAfterSeconds } from './retry-after.js';

export type ServiceName = 'browser' | 'account';

export interface ErrorResponse {
  service: ServiceName;
  status: number;
  method: string;
  /** Path without the query string. */
  path: string;
  /** Parsed JSON when the body was JSON, else the text (truncated). */
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  nowMs?: number;
  /** What to change, appended to the message (e.g. the URL is not the API). */
  hint?: string | undefined;
}

const AUTH_HINT: Record<ServiceName, string> = {
  browser:
    "the browser service token is missing, invalid or expired. Tokens are valid for 7 days: copy the current one from the dashboard's browser page into REMOTE_BROWSER_TOKEN (or the `token` option)",
  account:
    'the account API key is missing or invalid. Copy it from the Profile section of the account dashboard into REMOTE_BROWSER_API_KEY (or the `apiKey` option)',
};

/**
 * The 401 hint, once: when the service already says the token expired after 7 days (the
 * emulator and the real service word it so), only what to set is added.
 */
function authMessage(service: ServiceName, said: string): string {
  if (service === 'browser' && /7 days/i.test(said)) {
    return `${said} (set REMOTE_BROWSER_TOKEN or the \`token\` option to the current token)`;
  }
  if (service === 'account' && /profile section/i.test(said)) {
    return `${said} (set REMOTE_BROWSER_API_KEY or the \`apiKey\` option)`;
  }
  return `${said}: ${AUTH_HINT[service]}`;
}

function header(headers: ErrorResponse['headers'], name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function num(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{field: [messages]}` bodies of the account service (Django REST framework style). */
export function fieldErrorsOf(body: unknown): Record<string, string[]> | undefined {
  if (!isRecord(body)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(body)) {
    if (Array.isArray(value) && value.every((m) => typeof m === 'string')) out[key] = value;
    else if (typeof value === 'string' && key !== 'error' && key !== 'detail') out[key] = [value];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Credits stated in a 402 message. The wording is not specified, so both numbers are read
 * from what follows (or precedes) the words "required"/"need" and "available"/"have".
 */
export function parseCredits(message: string): { required?: number; available?: number } {
  const pick = (patterns: RegExp[]) => {
    for (const p of patterns) {
      const m = p.exec(message);
      if (m?.[1] !== undefined) return Number(m[1]);
    }
    return undefined;
  };
  // "6 required" is tried before "required: 6", so "6 required, 2 available" reads 6 and 2.
  const required = pick([
    /(?<!\d)(\d{1,15})\s{1,8}(?:credits?\s{1,8})?(?:are\s{1,8}|is\s{1,8})?(?:required|needed)/i,
    /requir(?:ed|es)\D{0,20}?(\d{1,15})/i,
    /needs?\D{0,20}?(\d{1,15})/i,
  ]);
  const available = pick([
    /(?<!\d)(\d{1,15})\s{1,8}(?:credits?\s{1,8})?(?:are\s{1,8}|is\s{1,8})?available/i,
    /available\D{0,20}?(\d{1,15})/i,
    /(?:have|has|balance)\D{0,20}?(\d{1,15})/i,
  ]);
  return {
    ...(required !== undefined ? { required } : {}),
    ...(available !== undefined ? { available } : {}),
  };
}

/**
 * What the service said, cut to the length an error message keeps (a hostile body's 1 MB
 * `error` is never scanned whole by the patterns below or by redaction).
 */
function serviceMessage(body: unknown, status: number): string {
  return cutForMessage(serviceText(body, status));
}

function serviceText(body: unknown, status: number): string {
  if (isRecord(body)) {
    if (typeof body.error === 'string') return body.error;
    if (typeof body.detail === 'string') return body.detail;
    if (typeof body.message === 'string') return body.message;
    const fields = fieldErrorsOf(body);
    if (fields) {
      return Object.entries(fields)
        .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
        .join('; ');
    }
  }
  if (typeof body === 'string' && body.trim() !== '') return body.trim().slice(0, 300);
  return `HTTP ${status}`;
}

export function errorFromResponse(res: ErrorResponse): ApiError {
  const body = res.body;
  const said = serviceMessage(body, res.status);
  const message = res.hint ? `${said}. ${res.hint}` : said;
  const requestId = header(res.headers, 'x-request-id');
  const init: ApiErrorInit = {
    status: res.status,
    method: res.method,
    path: res.path,
    message,
    body,
    requestId,
  };
  const record = isRecord(body) ? body : {};
  const retryAfterMs =
    parseRetryAfter(header(res.headers, 'retry-after'), res.nowMs) ??
    parseRetryAfterSeconds(record.retry_after);

  switch (res.status) {
    case 400:
      return new BadRequestError({ ...init, fieldErrors: fieldErrorsOf(body) });
    case 401:
      return new AuthenticationError({ ...init, message: authMessage(res.service, message) });
    case 402:
      return new PaymentRequiredError({ ...init, ...parseCredits(message) });
    case 403:
      return new PermissionDeniedError(init);
    case 404:
      return new NotFoundError(init);
    case 409:
      return new ConflictError(init);
    case 429:
      return new RateLimitError({
        ...init,
        limitType: typeof record.limit_type === 'string' ? record.limit_type : undefined,
        currentUsage: num(record.current_usage),
        limit: num(record.limit),
        retryAfterMs,
      });
    case 502:
      return new UpstreamError(init);
    case 503:
      return new ServiceUnavailableError({
        ...init,
        reason: typeof record.reason === 'string' ? record.reason : undefined,
        retryAfterMs,
      });
    default:
      return res.status >= 500 ? new InternalServerError(init) : new ApiError(init);
  }
}

/** The wait a retryable error asks for, if any. */
export function retryAfterOf(error: ApiError): number | undefined {
  if (error instanceof RateLimitError || error instanceof ServiceUnavailableError) {
    return error.retryAfterMs;
  }
  return undefined;
}
