/**
 * The one HTTP transport under both API clients, on undici: base URL and auth header per
 * service, JSON bodies, `{ signal, timeout }`, keep-alive reuse, error mapping, response
 * validation and redacted debug lines. A call is its steps composed, each in its own module:
 * one attempt (`#send`), the limiter slot and the 429 back-off (`Pacing`, rate-limit-wait.ts),
 * the retry policy (`nextRetryDelay`, retry-policy.ts). What differs per service (the browser
 * service's `{ data }` envelope, the 404 hint naming its routes) is the service client's,
 * passed in as `payloadOf` and `notFoundHint`. Streams and downloads: stream-to.ts.
 */
import type { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { VERSION } from '../version.js';
import { type AttemptContext, attempt, type QueryValue, type RequestSpec } from './attempt.js';
import { callScope, waitInScope } from './call-options.js';
import { createDebug } from './debug.js';
import type { ServiceName } from './error-mapping.js';
import { Pacing } from './rate-limit-wait.js';
import {
  DEFAULT_RETRY,
  IDEMPOTENT_METHODS,
  nextRetryDelay,
  type RetryOptions,
} from './retry-policy.js';
import {
  type DownloadResult,
  type DownloadSpec,
  download,
  type StreamSpec,
  type StreamTarget,
  type StreamToSpec,
  streamTo,
} from './stream-to.js';
import { loadUndici } from './undici.js';

export type { DownloadResult, DownloadSpec, StreamSpec, StreamToSpec } from './stream-to.js';

const debug = createDebug('http');

export type { HttpMethod, QueryValue, RequestSpec } from './attempt.js';

export interface TransportOptions {
  service: ServiceName;
  /** Service origin, e.g. `https://browser.example` (no API path). */
  origin: string;
  /** `/api/v2/browser` or `/api/v2/base`. */
  apiPath: string;
  /** The complete `Authorization` value (`Bearer <token>` / `x-api-key <key>`). */
  authorization: string;
  /**
   * The service's success envelope → the payload, for a response other than 204 (the browser
   * service wraps it in `{ data }`: `unwrapData`, browser-api/envelope.ts); throws a
   * ResponseValidationError for a body that is not the envelope. Default: the body as it is.
   */
  payloadOf?: ((body: unknown, what: string) => unknown) | undefined;
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
   * The hint a 404 on `path` (under the API path) carries, the service's own: e.g. that the
   * configured URL is not the API (`notFoundHintFor`, hints.ts). Default: none.
   */
  notFoundHint?: ((path: string, body: unknown) => string | undefined) | undefined;
  /**
   * Largest JSON response body (success or error) read, in bytes: a longer one (or a
   * Content-Length above it) fails the call with a ResponseTooLargeError. Downloads have their
   * own `maxBytes`. Default 16 MiB (16777216).
   */
  maxResponseBytes?: number | undefined;
}

/** The default `maxResponseBytes`: 16 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

const USER_AGENT = `remote-browser/${VERSION} node/${process.versions.node}`;

export class Transport {
  readonly service: ServiceName;
  readonly origin: string;
  readonly apiPath: string;
  readonly #authorization: string;
  /** What every attempt of this transport's calls shares. */
  readonly #attempts: AttemptContext;
  readonly #timeout: number;
  readonly #retry: Required<RetryOptions>;
  readonly #givenDispatcher: Dispatcher | undefined;
  /** Made on the first request (undici loads then, not at import). */
  #ownDispatcher: Promise<Dispatcher> | undefined;
  readonly #unprocessed: ReadonlySet<number>;
  readonly #maxRateLimitWaitMs: number;

  constructor(options: TransportOptions) {
    this.service = options.service;
    this.origin = options.origin.replace(/\/+$/, '');
    this.apiPath = options.apiPath;
    this.#authorization = options.authorization;
    this.#timeout = options.timeout ?? 60_000;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#givenDispatcher = options.dispatcher;
    this.#unprocessed = new Set(options.unprocessedStatuses ?? []);
    this.#maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? Number.POSITIVE_INFINITY;
    this.#attempts = {
      service: this.service,
      origin: this.origin,
      apiPath: this.apiPath,
      url: (path, query) => this.url(path, query),
      headers: { authorization: this.#authorization, 'user-agent': USER_AGENT },
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      payloadOf: options.payloadOf,
      notFoundHint: options.notFoundHint,
    };
  }

  /** Full URL of an API path with its query string. */
  url(path: string, query?: Record<string, QueryValue>): string {
    const url = new URL(`${this.origin}${this.apiPath}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /** One call: attempts, each paced (limiter slot, 429 back-off), until the retry step gives up. */
  async request<T>(spec: RequestSpec<T>): Promise<T> {
    const idempotent = spec.idempotent ?? IDEMPOTENT_METHODS.has(spec.method);
    // Loading undici (once per process) is the library's start-up, not the call's time: it runs
    // before the call's timeout starts, so a slow first import never times a request out.
    const { request } = await loadUndici();
    const send = attempt(this.#attempts, spec, request, await this.#dispatcher());
    const scope = callScope(spec, this.#timeout, spec.what);
    const pacing = new Pacing(spec, scope, this.#maxRateLimitWaitMs);
    const retry = { idempotent, unprocessed: this.#unprocessed, policy: this.#retry };
    try {
      for (let n = 0; ; n++) {
        const answer = await pacing.attempt(n, () => send(scope, n));
        if ('payload' in answer) return answer.payload as T;
        const { error, end } = answer;
        const delay = nextRetryDelay(end, n, retry);
        if (delay === undefined) throw error;
        if (end.status === 429) {
          debug(`  rate-limited: ${spec.method} ${this.apiPath}${spec.path} again in ${delay}ms`);
          await pacing.backOff(delay);
          continue;
        }
        if (Date.now() + delay > scope.deadline) throw error;
        debug(`  retrying ${spec.method} ${this.apiPath}${spec.path} in ${delay}ms`);
        await waitInScope(delay, scope, spec.what);
      }
    } finally {
      scope.dispose();
    }
  }

  /**
   * Downloads a GET's body into `spec.path` (recordings), created only once the response is a
   * 2xx: see `streamTo`.
   */
  download(spec: DownloadSpec): Promise<DownloadResult> {
    return download(this.#streamTarget(spec), spec);
  }

  /**
   * A GET's body written into the writable `open()` returns, through undici's `stream()`:
   * `open` is called once the response is a 2xx, so an error status (a 3xx included: redirects
   * are not followed) creates nothing and is thrown as its error, with the start of its body.
   * The body ends the writable; `spec.onData` sees the count. The `Authorization` header goes
   * only to this service's own origin, never to a signed URL. A failure of the writable (ENOSPC,
   * say) or of `onData` is that error; one of the connection is a `ConnectionError`.
   */
  streamTo(
    spec: StreamToSpec,
    open: () => NodeJS.WritableStream | Writable,
  ): Promise<DownloadResult> {
    return streamTo(this.#streamTarget(spec), spec, open);
  }

  /** The URL of a stream or download, its headers, and the path its debug lines name. */
  #streamTarget(spec: StreamSpec): StreamTarget {
    const absolute = /^https?:\/\//i.test(spec.url) ? spec.url : this.url(spec.url);
    const target = new URL(absolute);
    const sameOrigin = target.origin === new URL(this.origin).origin;
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...spec.headers };
    // Never to a signed URL (one with a query), which carries its own authorization.
    if (sameOrigin && !target.searchParams.size) headers.authorization = this.#authorization;
    return {
      service: this.service,
      absolute,
      headers,
      logPath: target.pathname,
      dispatcher: this.#dispatcher(),
    };
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
}
