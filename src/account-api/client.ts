/**
 * `AccountApi`: the account service's client (credit-metered assistant queries, webhooks,
 * notifications). Wire names are kept exactly as account-api.md spells them.
 */
import type { Dispatcher } from 'undici';
import type { CallOptions } from '../http/call-options.js';
import { ACCOUNT_API_PATH, type AccountConfigInput, resolveAccountConfig } from '../http/config.js';
import { notFoundHintFor } from '../http/hints.js';
import { RateLimiter } from '../http/rate-limiter.js';
import type { RetryOptions } from '../http/retry-policy.js';
import { Transport } from '../http/transport.js';
import type { CostEstimate, CostParams } from './batches.js';
import { checkAccountOptions } from './options.js';
import { Credits } from './resources/credits.js';
import { Notifications } from './resources/notifications.js';
import { Queries } from './resources/queries.js';
import { Webhooks } from './resources/webhooks.js';
import { LIMITS } from './schemas/limits.js';
import type { Balance } from './schemas/queries.js';

export interface AccountRateLimits {
  /**
   * Submits per window, or a RateLimiter to share with other clients of the same account.
   * Default 20 (the documented limit).
   */
  submit?: number | RateLimiter | undefined;
  /**
   * Balance + results reads per window, together, or a shared RateLimiter. Default 100 (the
   * documented limit).
   */
  read?: number | RateLimiter | undefined;
  /** Window length in ms of the limiters built from numbers. Default 60000. */
  windowMs?: number | undefined;
  /**
   * Longest time one call may wait for a rate-limit slot (the local limiter's, and the
   * Retry-After of a 429), in ms. The wait is not part of the call's `timeout`: a submit queued
   * behind 20 others has not started. Default Infinity: wait as long as the queue needs; the
   * call's `signal` still ends the wait.
   */
  maxWaitMs?: number | undefined;
}

export interface AccountApiOptions extends AccountConfigInput {
  /**
   * Default per-call timeout in ms, retries included, rate-limit waits not. Default 60000;
   * `0` or `Infinity` for none.
   */
  timeout?: number | undefined;
  /**
   * Retry policy for idempotent calls. A submit is retried only after a 429 (the service wrote
   * and charged nothing) or a connection that never opened. Defaults: see `RetryOptions`.
   */
  retry?: RetryOptions | undefined;
  /**
   * Send `assistant_c` (valid in the schema, currently unavailable) instead of refusing it
   * before the request. Default false.
   */
  allowUnavailablePlatforms?: boolean | undefined;
  /**
   * Client-side pacing, shared by every call of this client (so many `wait`s together stay
   * under the limit). Raise it when the service raised your limits; `false` turns it off.
   * Default: submit 20/min, balance + results 100/min.
   */
  rateLimits?: AccountRateLimits | false | undefined;
  /** undici dispatcher (proxies, tests). Default: a keep-alive Agent owned by the client. */
  dispatcher?: Dispatcher | undefined;
  /**
   * Largest JSON response body read, in bytes: a longer one fails the call with a
   * ResponseTooLargeError instead of filling memory. Default 16 MiB (16777216).
   */
  maxResponseBytes?: number | undefined;
}

export class AccountApi {
  /** Balance and cost estimates. */
  readonly credits: Credits;
  readonly queries: Queries;
  readonly webhooks: Webhooks;
  readonly notifications: Notifications;
  /** The limiters in use (undefined when `rateLimits: false`). */
  readonly limiters: { submit: RateLimiter | undefined; read: RateLimiter | undefined };
  readonly #transport: Transport;

  /**
   * Throws a ConfigurationError naming the env var when the key or URL is missing, and a
   * RequestValidationError naming the option when one is malformed.
   */
  constructor(options: AccountApiOptions = {}) {
    checkAccountOptions(options);
    const config = resolveAccountConfig(options);
    this.#transport = new Transport({
      service: 'account',
      origin: config.baseUrl,
      apiPath: ACCOUNT_API_PATH,
      authorization: `x-api-key ${config.apiKey}`,
      timeout: options.timeout,
      retry: options.retry,
      dispatcher: options.dispatcher,
      maxResponseBytes: options.maxResponseBytes,
      // A 429 wrote and charged nothing, so even a submit is sent again after its Retry-After.
      unprocessedStatuses: [429],
      maxRateLimitWaitMs: options.rateLimits ? options.rateLimits.maxWaitMs : undefined,
      // Routes without an identifier: a 404 there means the URL is not the API.
      notFoundHint: notFoundHintFor('account', `${config.baseUrl}${ACCOUNT_API_PATH}`, [
        '/llm/balance/',
        '/llm/submit/',
        '/webhooks',
        '/webhooks/event-types',
        '/notifications/',
      ]),
    });
    const limits = options.rateLimits;
    const limiter = (given: number | RateLimiter | undefined, fallback: number) =>
      given instanceof RateLimiter
        ? given
        : new RateLimiter({
            limit: given ?? fallback,
            windowMs: limits ? limits.windowMs : undefined,
          });
    this.limiters =
      limits === false
        ? { submit: undefined, read: undefined }
        : {
            submit: limiter(limits?.submit, LIMITS.submitsPerMinute),
            read: limiter(limits?.read, LIMITS.readsPerMinute),
          };
    this.queries = new Queries({
      transport: this.#transport,
      submitLimiter: this.limiters.submit,
      readLimiter: this.limiters.read,
      allowUnavailablePlatforms: options.allowUnavailablePlatforms ?? false,
    });
    this.credits = new Credits(this.#transport, this.limiters.read);
    this.webhooks = new Webhooks(this.#transport);
    this.notifications = new Notifications(this.#transport);
  }

  /**
   * Credits available; the first read of a calendar month grants that month's free credits.
   * The same as `credits.balance()`.
   */
  balance(options: CallOptions = {}): Promise<Balance> {
    return this.credits.balance(options);
  }

  /** The same as `credits.estimate()`: the documented minimum and the per-location maximum. */
  estimateCost(params: CostParams): CostEstimate {
    return this.credits.estimate(params);
  }

  /** Releases pooled connections. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
