/**
 * `AccountApi`: the account service's client (credit-metered assistant queries, webhooks,
 * notifications). Wire names are kept exactly as account-api.md spells them.
 */
import type { Dispatcher } from 'undici';
import type { CallOptions } from '../http/call-options.js';
import { ACCOUNT_API_PATH, type AccountConfigInput, resolveAccountConfig } from '../http/config.js';
import { RateLimiter } from '../http/rate-limiter.js';
import type { RetryOptions } from '../http/retry-policy.js';
import { Transport } from '../http/transport.js';
import { BalanceResource } from './balance.js';
import { type CostEstimate, estimateCost } from './batches.js';
import { Notifications } from './notifications.js';
import { Queries } from './queries.js';
import { type Balance, LIMITS } from './schemas.js';
import { Webhooks } from './webhooks.js';

export interface AccountRateLimits {
  /** Submits per window. Default 20 (the documented limit). */
  submit?: number | undefined;
  /** Balance + results reads per window, together. Default 100 (the documented limit). */
  read?: number | undefined;
  /** Window length in ms. Default 60000. */
  windowMs?: number | undefined;
}

export interface AccountApiOptions extends AccountConfigInput {
  /** Default per-call timeout in ms, retries included. Default 60000. */
  timeout?: number | undefined;
  /** Retry policy for idempotent calls (never for submit). Defaults: see `RetryOptions`. */
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
}

export class AccountApi {
  readonly queries: Queries;
  readonly webhooks: Webhooks;
  readonly notifications: Notifications;
  /** The limiters in use (undefined when `rateLimits: false`). */
  readonly limiters: { submit: RateLimiter | undefined; read: RateLimiter | undefined };
  readonly #transport: Transport;
  readonly #balance: BalanceResource;

  constructor(options: AccountApiOptions = {}) {
    const config = resolveAccountConfig(options);
    this.#transport = new Transport({
      service: 'account',
      origin: config.baseUrl,
      apiPath: ACCOUNT_API_PATH,
      authorization: `x-api-key ${config.apiKey}`,
      unwrapData: false,
      timeout: options.timeout,
      retry: options.retry,
      dispatcher: options.dispatcher,
    });
    const limits = options.rateLimits;
    this.limiters =
      limits === false
        ? { submit: undefined, read: undefined }
        : {
            submit: new RateLimiter({
              limit: limits?.submit ?? LIMITS.submitsPerMinute,
              windowMs: limits?.windowMs ?? 60_000,
            }),
            read: new RateLimiter({
              limit: limits?.read ?? LIMITS.readsPerMinute,
              windowMs: limits?.windowMs ?? 60_000,
            }),
          };
    this.queries = new Queries({
      transport: this.#transport,
      submitLimiter: this.limiters.submit,
      readLimiter: this.limiters.read,
      allowUnavailablePlatforms: options.allowUnavailablePlatforms ?? false,
    });
    this.#balance = new BalanceResource(this.#transport, this.limiters.read);
    this.webhooks = new Webhooks(this.#transport);
    this.notifications = new Notifications(this.#transport);
  }

  /** Credits available; the first read of a calendar month grants that month's free credits. */
  balance(options: CallOptions = {}): Promise<Balance> {
    return this.#balance.read(options);
  }

  /**
   * Credits a submit (or the submits `runMany` makes) will take, by the documented rule
   * (questions × platforms per submit). A minimum: the per-location charge is not documented,
   * so `maxCredits` gives the figure if each location were charged too.
   */
  estimateCost(params: {
    questions: readonly unknown[];
    platforms: readonly unknown[];
    locations: readonly unknown[];
  }): CostEstimate {
    return estimateCost(params);
  }

  /** Releases pooled connections. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
