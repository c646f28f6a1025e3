/**
 * One attempt of a call: the request through undici, the body read with its cap, and what came
 * back: the validated payload, or the error (a ConnectionError, or the status's error class)
 * with what the retry step needs to know of it. The steps around it (the limiter slot, the 429
 * back-off, the retry policy) are the transport's composition (transport.ts).
 */
import type { Dispatcher } from 'undici';
import type { ZodType } from 'zod';
import type { CallOptions, CallScope } from './call-options.js';
import { createDebug } from './debug.js';
import { errorFromResponse, retryAfterOf, type ServiceName } from './error-mapping.js';
import { ConnectionError, ResponseTooLargeError, ResponseValidationError } from './errors.js';
import { connectionHint } from './hints.js';
import type { RateLimiter } from './rate-limiter.js';
import { parseBody, readCapped, socketReason } from './response-body.js';
import { type AttemptEnd, wasNeverSent } from './retry-policy.js';

const debug = createDebug('http');

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | undefined | null;

export interface RequestSpec<T> extends CallOptions {
  method: HttpMethod;
  /** Path under the API path, e.g. `/sessions/abc`. */
  path: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  /**
   * Whether repeating the call is harmless. Default: true for GET/PUT/DELETE, false for
   * POST/PATCH. A non-idempotent call is retried only when it provably never left.
   */
  idempotent?: boolean | undefined;
  /** Waits for a slot of this limiter before every attempt. */
  limiter?: RateLimiter | undefined;
  /** Validates the (unwrapped) payload; unknown keys are the schema's business. */
  schema?: ZodType<T> | undefined;
  /** Names the operation in error messages, e.g. `sessions.create`. */
  what: string;
}

/** What every attempt of one transport shares. */
export interface AttemptContext {
  service: ServiceName;
  origin: string;
  apiPath: string;
  url(path: string, query?: Record<string, QueryValue>): string;
  /** Authorization and user-agent. */
  headers: Record<string, string>;
  maxResponseBytes: number;
  payloadOf: ((body: unknown, what: string) => unknown) | undefined;
  notFoundHint: ((path: string, body: unknown) => string | undefined) | undefined;
}

/** What one attempt came to: the payload, or an error and what the retry step reads of it. */
export type Answer = { payload: unknown } | { error: Error; end: AttemptEnd };

/**
 * One attempt of `spec`: the payload, or the error it failed with and what the retry step
 * needs to know of it. Throws only what no retry can change (an abort, a body too large).
 */
export function attempt<T>(
  ctx: AttemptContext,
  spec: RequestSpec<T>,
  request: typeof import('undici').request,
  dispatcher: Dispatcher,
): (scope: CallScope, attempt: number) => Promise<Answer> {
  const { method } = spec;
  const url = ctx.url(spec.path, spec.query);
  const logPath = `${ctx.apiPath}${spec.path}`;
  const headers: Record<string, string> = { ...ctx.headers, accept: 'application/json' };
  let payload: string | undefined;
  if (spec.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(spec.body);
  }
  return async (scope, attempt) => {
    const started = Date.now();
    debug(`→ ${method} ${logPath}${attempt ? ` (retry ${attempt})` : ''}`);
    let response: Dispatcher.ResponseData;
    let text: string;
    try {
      response = await request(url, {
        method,
        headers,
        body: payload,
        signal: scope.signal,
        dispatcher,
      });
      text = await readCapped(response, ctx.maxResponseBytes, spec.what);
    } catch (error) {
      if (error instanceof ResponseTooLargeError) throw error;
      if (scope.signal.aborted) throw scope.abortError(spec.what);
      debug(`✗ ${method} ${logPath}: ${(error as Error).message}`);
      const neverSent = wasNeverSent(error);
      const hint = connectionHint(ctx.service, ctx.origin, error);
      const failed = new ConnectionError(
        `${spec.what}: ${method} ${logPath} failed without a response: ${socketReason(error)}` +
          (neverSent ? '' : ' (the service may have received the request)') +
          (hint ? `. ${hint}` : ''),
        { cause: error, requestSent: !neverSent, hint },
      );
      return { error: failed, end: { neverSent } };
    }
    const status = response.statusCode;
    debug(`← ${status} ${method} ${logPath} ${Date.now() - started}ms`);
    const body = parseBody(text);
    if (status < 400) return { payload: payloadOf(ctx, spec, body, status) };
    const error = errorFromResponse({
      service: ctx.service,
      status,
      method,
      path: logPath,
      body,
      headers: response.headers,
      hint: status === 404 ? ctx.notFoundHint?.(spec.path, body) : undefined,
    });
    return { error, end: { status, retryAfterMs: retryAfterOf(error) } };
  };
}

/** The payload of a success: the service's envelope opened (not for a 204), then the schema. */
function payloadOf<T>(ctx: AttemptContext, spec: RequestSpec<T>, body: unknown, status: number): T {
  const payload = ctx.payloadOf && status !== 204 ? ctx.payloadOf(body, spec.what) : body;
  if (!spec.schema) return payload as T;
  const result = spec.schema.safeParse(payload);
  if (result.success) return result.data;
  throw new ResponseValidationError(
    spec.what,
    result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.'),
      message: issue.message,
    })),
  );
}
