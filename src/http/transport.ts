/**
 * The one HTTP transport under both API clients, on undici: base URL and auth header per
 * service, JSON bodies, `{ data }` unwrapping, `{ signal, timeout }`, keep-alive reuse, the
 * retry policy, rate limiters, error mapping, response validation and redacted debug lines.
 */
import type { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { ZodType } from 'zod';
import { VERSION } from '../version.js';
import { type CallOptions, callScope, waitInScope } from './call-options.js';
import { createDebug } from './debug.js';
import { errorFromResponse, retryAfterOf, type ServiceName } from './error-mapping.js';
import { ConnectionError, ResponseTooLargeError, ResponseValidationError } from './errors.js';
import { connectionHint, notTheApiHint } from './hints.js';
import { nodeFs, nodeStream } from './node-builtins.js';
import { RateLimitWait } from './rate-limit-wait.js';
import type { RateLimiter, RateLimitSlot } from './rate-limiter.js';
import {
  DEFAULT_RETRY,
  IDEMPOTENT_METHODS,
  RETRYABLE_STATUSES,
  type RetryOptions,
  retryDelay,
  wasNeverSent,
} from './retry-policy.js';
import { loadUndici } from './undici.js';

const debug = createDebug('http');

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | undefined | null;

export interface TransportOptions {
  service: ServiceName;
  /** Service origin, e.g. `https://browser.example` (no API path). */
  origin: string;
  /** `/api/v2/browser` or `/api/v2/base`. */
  apiPath: string;
  /** The complete `Authorization` value (`Bearer <token>` / `x-api-key <key>`). */
  authorization: string;
  /** Whether success bodies wrap their payload in `{ data }` (the browser service). */
  unwrapData: boolean;
  /** Default per-call timeout in ms, retries included. Default 60000. */
  timeout?: number | undefined;
  /** Retry policy for idempotent calls. Defaults: see `RetryOptions`. */
  retry?: RetryOptions | undefined;
  /** undici dispatcher; default: a keep-alive Agent owned by this transport. */
  dispatcher?: Dispatcher | undefined;
  /**
   * Statuses with which the service says it did nothing, so that even a non-idempotent call is
   * retried (after the Retry-After it names). The account service: 429 (a rate-limited submit
   * wrote and charged nothing). Default: none.
   */
  unprocessedStatuses?: readonly number[] | undefined;
  /**
   * Longest time one call may wait for rate-limit slots (the limiter's, and a 429's
   * Retry-After), in ms. Not request time: the call's `timeout` does not run meanwhile.
   * Default Infinity (bounded by the caller's signal only).
   */
  maxRateLimitWaitMs?: number | undefined;
  /**
   * Paths every deployment of the service has (a trailing `*` matches a prefix): a 404 there
   * means the configured URL is not the API, and the error says so. Default: none.
   */
  staticRoutes?: readonly string[] | undefined;
  /**
   * Largest JSON response body (success or error) read, in bytes: a longer one (or a
   * Content-Length above it) fails the call with a ResponseTooLargeError. Downloads have their
   * own `maxBytes`. Default 16 MiB (16777216).
   */
  maxResponseBytes?: number | undefined;
}

/** The default `maxResponseBytes`: 16 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

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

export interface StreamSpec extends CallOptions {
  /** An absolute URL (e.g. a signed `video_url`) or a path under the API path. */
  url: string;
  headers?: Record<string, string> | undefined;
  what: string;
}

export interface StreamToSpec extends StreamSpec {
  /** After each piece of the body: bytes so far, and the Content-Length if any. May throw. */
  onData?: ((receivedBytes: number, contentLength: number | undefined) => void) | undefined;
  /** Ms the body may stay silent before the GET fails (undici's `bodyTimeout`). Default 300000. */
  idleTimeout?: number | undefined;
  /**
   * Largest body accepted, in bytes: a Content-Length above it, or more bytes than it (a
   * server that streams forever), fails with a ResponseTooLargeError. Default: no limit.
   */
  maxBytes?: number | undefined;
}

export interface DownloadSpec extends StreamToSpec {
  /** The file the body goes to (created or truncated). Removing it on failure is the caller's. */
  path: string;
}

export interface DownloadResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

const USER_AGENT = `remote-browser/${VERSION} node/${process.versions.node}`;

export class Transport {
  readonly service: ServiceName;
  readonly origin: string;
  readonly apiPath: string;
  readonly #authorization: string;
  readonly #unwrapData: boolean;
  readonly #timeout: number;
  readonly #retry: Required<RetryOptions>;
  readonly #givenDispatcher: Dispatcher | undefined;
  /** Made on the first request (undici loads then, not at import). */
  #ownDispatcher: Promise<Dispatcher> | undefined;
  readonly #unprocessed: ReadonlySet<number>;
  readonly #maxRateLimitWaitMs: number;
  readonly #staticRoutes: readonly string[];
  readonly #maxResponseBytes: number;

  constructor(options: TransportOptions) {
    this.service = options.service;
    this.origin = options.origin.replace(/\/+$/, '');
    this.apiPath = options.apiPath;
    this.#authorization = options.authorization;
    this.#unwrapData = options.unwrapData;
    this.#timeout = options.timeout ?? 60_000;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#givenDispatcher = options.dispatcher;
    this.#unprocessed = new Set(options.unprocessedStatuses ?? []);
    this.#maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? Number.POSITIVE_INFINITY;
    this.#staticRoutes = options.staticRoutes ?? [];
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  /** Full URL of an API path with its query string. */
  url(path: string, query?: Record<string, QueryValue>): string {
    const url = new URL(`${this.origin}${this.apiPath}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  async request<T>(spec: RequestSpec<T>): Promise<T> {
    const method = spec.method;
    const idempotent = spec.idempotent ?? IDEMPOTENT_METHODS.has(method);
    const url = this.url(spec.path, spec.query);
    const logPath = `${this.apiPath}${spec.path}`;
    // Loading undici (once per process) is the library's start-up, not the call's time: it runs
    // before the call's timeout starts, so a slow first import never times a request out.
    const { request } = await loadUndici();
    const dispatcher = await this.#dispatcher();
    const scope = callScope(spec, this.#timeout, spec.what);
    const rateWait = new RateLimitWait(spec.what, spec.signal, this.#maxRateLimitWaitMs);
    const headers: Record<string, string> = {
      authorization: this.#authorization,
      accept: 'application/json',
      'user-agent': USER_AGENT,
    };
    let payload: string | undefined;
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(spec.body);
    }

    let slot: RateLimitSlot | undefined;
    let rateLimited = false;
    try {
      for (let attempt = 0; ; attempt++) {
        if (spec.limiter) {
          // Waiting for a slot is not request time: the timeout clock stops meanwhile.
          scope.pause();
          slot = await rateWait.slot(spec.limiter, attempt > 0, rateLimited);
          scope.resume();
          if (scope.signal.aborted) throw scope.abortError(spec.what);
        }
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
          text = await readCapped(response, this.#maxResponseBytes, spec.what);
        } catch (error) {
          slot?.release();
          if (error instanceof ResponseTooLargeError) throw error;
          if (scope.signal.aborted) throw scope.abortError(spec.what);
          const neverSent = wasNeverSent(error);
          const delay =
            idempotent || neverSent ? retryDelay(attempt, undefined, this.#retry) : undefined;
          debug(`✗ ${method} ${logPath}: ${(error as Error).message}`);
          if (delay === undefined || Date.now() + delay > scope.deadline) {
            const hint = connectionHint(this.service, this.origin, error);
            throw new ConnectionError(
              `${spec.what}: ${method} ${logPath} failed without a response: ${socketReason(error)}` +
                (neverSent ? '' : ' (the service may have received the request)') +
                (hint ? `. ${hint}` : ''),
              { cause: error, requestSent: !neverSent, hint },
            );
          }
          await waitInScope(delay, scope, spec.what);
          continue;
        }

        // The response is in: the service has counted this request, its slot's window starts.
        slot?.release();
        const status = response.statusCode;
        debug(`← ${status} ${method} ${logPath} ${Date.now() - started}ms`);
        const body = parseBody(text);
        if (status >= 400) {
          const error = errorFromResponse({
            service: this.service,
            status,
            method,
            path: logPath,
            body,
            headers: response.headers,
            hint:
              status === 404
                ? notTheApiHint(
                    this.service,
                    `${this.origin}${this.apiPath}`,
                    this.#isStaticRoute(spec.path),
                    body,
                  )
                : undefined,
          });
          const safe = idempotent || this.#unprocessed.has(status);
          const delay =
            safe && RETRYABLE_STATUSES.has(status)
              ? retryDelay(attempt, retryAfterOf(error), this.#retry)
              : undefined;
          if (delay === undefined) throw error;
          if (status === 429) {
            // A wait for a rate-limit slot, like the limiter's: not request time. With a
            // limiter, every caller of it holds back until then; the retry goes first.
            debug(`  rate-limited: ${method} ${logPath} again in ${delay}ms`);
            rateLimited = true;
            if (spec.limiter) {
              spec.limiter.backOff(delay);
            } else {
              scope.pause();
              await rateWait.sleep(delay);
              scope.resume();
            }
            continue;
          }
          if (Date.now() + delay > scope.deadline) throw error;
          debug(`  retrying ${method} ${logPath} in ${delay}ms`);
          await waitInScope(delay, scope, spec.what);
          continue;
        }
        return this.#payload(spec, body, status);
      }
    } finally {
      slot?.release();
      scope.dispose();
    }
  }

  /**
   * Downloads a GET's body into `spec.path` (recordings), created only once the response is a
   * 2xx: see `streamTo`.
   */
  download(spec: DownloadSpec): Promise<DownloadResult> {
    const file = () =>
      nodeFs().createWriteStream(spec.path, { highWaterMark: FILE_WRITE_BUFFER_BYTES });
    return this.streamTo(spec, file);
  }

  /**
   * A GET's body written into the writable `open()` returns, through undici's `stream()`:
   * `open` is called once the response is a 2xx, so an error status (a 3xx included: redirects
   * are not followed) creates nothing and is thrown as its error, with the start of its body.
   * The body ends the writable; `spec.onData` sees the count. The `Authorization` header goes
   * only to this service's own origin, never to a signed URL. A failure of the writable (ENOSPC,
   * say) or of `onData` is that error; one of the connection is a `ConnectionError`.
   */
  async streamTo(
    spec: StreamToSpec,
    open: () => NodeJS.WritableStream | Writable,
  ): Promise<DownloadResult> {
    const { absolute, headers, logPath } = this.#streamTarget(spec);
    const { stream } = await loadUndici();
    const dispatcher = await this.#dispatcher();
    const scope = callScope(spec, 0);
    if (scope.signal.aborted) {
      scope.dispose();
      throw scope.abortError(spec.what);
    }
    debug(`→ GET ${logPath} (download)`);
    let head: { status: number; headers: DownloadResult['headers'] } | undefined;
    let errorBody: Buffer[] = [];
    let sink: CountedSink | undefined;
    try {
      await stream(
        absolute,
        {
          method: 'GET',
          headers,
          signal: scope.signal,
          dispatcher,
          ...(spec.idleTimeout !== undefined && { bodyTimeout: spec.idleTimeout }),
        },
        ({ statusCode, headers: got }) => {
          head = { status: statusCode, headers: got };
          debug(`← ${statusCode} GET ${logPath} (download)`);
          if (statusCode >= 300) return errorBodyCollector((chunks) => (errorBody = chunks));
          const length = Number([got['content-length']].flat()[0]);
          const contentLength = Number.isFinite(length) && length >= 0 ? length : undefined;
          const onData = capped(spec);
          sink = countedSink(open(), (bytes) => onData?.(bytes, contentLength));
          return sink.writable;
        },
      );
    } catch (error) {
      if (scope.signal.aborted) throw scope.abortError(spec.what);
      if (sink?.failure !== undefined) throw sink.failure;
      if (head === undefined || head.status < 300) {
        const how = head ? 'failed mid-body' : 'failed without a response';
        throw new ConnectionError(`${spec.what}: GET ${logPath} ${how}: ${socketReason(error)}`, {
          cause: error,
          requestSent: head !== undefined || !wasNeverSent(error),
        });
      }
    } finally {
      scope.dispose();
    }
    if (head === undefined) throw new Error('unreachable: undici resolved without a response');
    if (head.status >= 300) {
      throw errorFromResponse({
        service: this.service,
        status: head.status,
        method: 'GET',
        path: logPath,
        body: parseBody(Buffer.concat(errorBody).toString('utf8')),
        headers: head.headers,
      });
    }
    return { status: head.status, headers: head.headers, bytes: sink?.bytes ?? 0 };
  }

  /** The URL of a stream or download, its headers, and the path its debug lines name. */
  #streamTarget(spec: StreamSpec): {
    absolute: string;
    headers: Record<string, string>;
    logPath: string;
  } {
    const absolute = /^https?:\/\//i.test(spec.url) ? spec.url : this.url(spec.url);
    const target = new URL(absolute);
    const sameOrigin = target.origin === new URL(this.origin).origin;
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...spec.headers };
    // Never to a signed URL (one with a query), which carries its own authorization.
    if (sameOrigin && !target.searchParams.size) headers.authorization = this.#authorization;
    return { absolute, headers, logPath: target.pathname };
  }

  #isStaticRoute(path: string): boolean {
    return this.#staticRoutes.some((route) =>
      route.endsWith('*') ? path.startsWith(route.slice(0, -1)) : path === route,
    );
  }

  #dispatcher(): Dispatcher | Promise<Dispatcher> {
    if (this.#givenDispatcher) return this.#givenDispatcher;
    this.#ownDispatcher ??= loadUndici().then(
      ({ Agent }) => new Agent({ keepAliveTimeout: 10_000 }),
    );
    return this.#ownDispatcher;
  }

  /**
   * Releases pooled connections (only those of a dispatcher this transport created). Closing
   * twice is harmless (`close()` then `await using`): undici rejects a second close of an Agent.
   * A later call opens a new pool.
   */
  async close(): Promise<void> {
    const own = this.#ownDispatcher;
    this.#ownDispatcher = undefined;
    if (own) await (await own).close();
  }

  #payload<T>(spec: RequestSpec<T>, body: unknown, status: number): T {
    let payload = body;
    if (this.#unwrapData && status !== 204) {
      if (typeof body !== 'object' || body === null || !('data' in body)) {
        throw new ResponseValidationError(spec.what, [
          { path: 'data', message: 'is missing: success bodies wrap their payload in { data }' },
        ]);
      }
      payload = (body as { data: unknown }).data;
    }
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
}

/**
 * `spec.onData` behind the download limit, which both download paths (the ring-buffer reader
 * and the undici pipe) call after every piece: past `spec.maxBytes` (or with a Content-Length
 * above it) it throws a ResponseTooLargeError, which fails the download.
 */
function capped(spec: StreamToSpec): StreamToSpec['onData'] {
  const max = spec.maxBytes;
  if (max === undefined) return spec.onData;
  return (received, contentLength) => {
    if (received > max || (contentLength !== undefined && contentLength > max)) {
      throw new ResponseTooLargeError(spec.what, max, 'maxBytes');
    }
    spec.onData?.(received, contentLength);
  };
}

/**
 * A response body as text, read only up to `max` bytes: a Content-Length above it, or more
 * bytes than it, throws a ResponseTooLargeError and destroys the rest of the body.
 */
async function readCapped(
  response: Dispatcher.ResponseData,
  max: number,
  what: string,
): Promise<string> {
  const length = Number([response.headers['content-length']].flat()[0]);
  const tooLarge = () => new ResponseTooLargeError(what, max, 'maxResponseBytes');
  if (Number.isFinite(length) && length > max) {
    response.body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > max) {
      response.body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, bytes).toString('utf8');
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  }
}

/**
 * The socket error in one line: OpenSSL's multi-line record (`…:SSL routines:ssl3_get_record:wrong
 * version number:../deps/…:350:`) becomes its reason, so the hint that follows is what stands out.
 */
function socketReason(error: unknown): string {
  const message = String((error as Error)?.message ?? error);
  const ssl = /SSL routines:[^:]*:([^:]+):/.exec(message);
  if (ssl) return `TLS handshake failed: ${ssl[1]}`;
  return (message.split('\n')[0] ?? message).trim();
}

/**
 * What a download's file stream takes before it says "wait": with the default 16 KB every 64 KB
 * chunk of the body paused the socket until its write returned (a 1 GB download ran at 0.6× a
 * raw stream copy, bench P5); 1 MB lets the stream batch chunks into one writev while the body
 * keeps coming.
 */
const FILE_WRITE_BUFFER_BYTES = 1024 * 1024;

/** Of an error response's body, the start the error message needs. */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * The writable an error status's body goes to: keeps its first 64 KB, then stops the response
 * (its error is thrown from the head and this start; no need to wait for the rest).
 */
function errorBodyCollector(done: (chunks: Buffer[]) => void): Writable {
  const chunks: Buffer[] = [];
  let kept = 0;
  return new (nodeStream().Writable)({
    write(chunk: Buffer, _encoding, next) {
      const room = MAX_ERROR_BODY - kept;
      chunks.push(chunk.subarray(0, room));
      kept += Math.min(room, chunk.length);
      done(chunks);
      next(kept >= MAX_ERROR_BODY ? new Error('error body kept') : null);
    },
    final(next) {
      done(chunks);
      next();
    },
  });
}

/** A download's sink as `countedSink` builds it: the bytes it took, and what failed in it. */
interface CountedSink {
  writable: Writable;
  bytes: number;
  /** The sink's own error (ENOSPC, say) or the report's: the download throws it as it is. */
  failure: unknown;
}

/**
 * The one write path of a download: each chunk of the body is counted, reported, and written to
 * the sink with its backpressure; the end of the body ends the sink, and the download resolves
 * once the sink is finished (a file closed). A failed download destroys the sink.
 */
function countedSink(
  sink: NodeJS.WritableStream | Writable,
  report: (bytes: number) => void,
): CountedSink {
  const { Writable, finished } = nodeStream();
  const out: CountedSink = {
    bytes: 0,
    failure: undefined,
    writable: new Writable({
      write(chunk: Buffer, _encoding, next) {
        out.bytes += chunk.length;
        try {
          report(out.bytes);
        } catch (error) {
          out.failure ??= error;
          next(error as Error);
          return;
        }
        if (sink.write(chunk)) next();
        else sink.once('drain', () => next());
      },
      final(next) {
        // Its writable side only: a duplex given as the sink (a PassThrough) is read elsewhere.
        finished(sink as Writable, { readable: false }, (error) => next(error));
        sink.end();
      },
      destroy(error, next) {
        if (error) (sink as Writable).destroy?.();
        next(error);
      },
    }),
  };
  sink.on('error', (error: Error) => {
    out.failure ??= error;
    out.writable.destroy(error);
  });
  return out;
}
