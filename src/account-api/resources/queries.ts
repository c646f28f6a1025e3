/**
 * The query service: submit a batch, read its rows, wait while any row is pending. Answers come
 * only by polling (there is no webhook for results), so every poll goes through the client's
 * shared balance+results limiter: many batches waited on at once stay within 100/min together.
 */
import type { CallOptions } from '../../http/call-options.js';
import { idSegment } from '../../http/path.js';
import { poll } from '../../http/polling.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { parseRequest } from '../../http/request-validation.js';
import { Resource } from '../../http/resource.js';
import type { Transport } from '../../http/transport.js';
import { creditMeter, creditsOf } from '../credit-meter.js';
import {
  type Batch,
  BatchSchema,
  type RunManyParams,
  type SubmitParams,
  SubmitParamsSchema,
  type SubmitResponse,
  SubmitResponseSchema,
} from '../schemas/queries.js';
import { rejectUnavailablePlatforms } from '../validate.js';
import { type RunManyOptions, type RunManyResult, runMany } from './run-many.js';
import {
  checkWaitOptions,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_WAIT_TIMEOUT_MS,
  isPending,
  type WaitOptions,
} from './wait-options.js';

export interface QueriesConfig {
  transport: Transport;
  submitLimiter: RateLimiter | undefined;
  readLimiter: RateLimiter | undefined;
  allowUnavailablePlatforms: boolean;
}

export class Queries extends Resource {
  readonly #config: QueriesConfig;

  constructor(config: QueriesConfig) {
    super(config.transport);
    this.#config = config;
  }

  /**
   * Submits one batch (≤20 questions, ≤10 locations). Validated first: an invalid call sends
   * nothing. Paced at 20 per minute (the wait is not part of `timeout`). Sent again only after a
   * 429 (the service wrote and charged nothing) or a connection that never opened: after any
   * other failure it may have reached the service, and a retry could charge twice. Countries
   * are checked for their shape only: which ones the assistants serve is the service's call.
   */
  async submit(params: SubmitParams, options: CallOptions = {}): Promise<SubmitResponse> {
    const body = parseRequest('queries.submit', SubmitParamsSchema, params);
    rejectUnavailablePlatforms(
      'queries.submit',
      body.platforms,
      this.#config.allowUnavailablePlatforms,
    );
    // A budget refuses the submit here, before the request (BudgetExceededError).
    const meter = creditMeter();
    const credits = creditsOf(body);
    meter?.reserve(credits, 'queries.submit');
    let submitted: SubmitResponse;
    try {
      submitted = await this.transport.request({
        ...options,
        method: 'POST',
        path: '/llm/submit/',
        body,
        limiter: this.#config.submitLimiter,
        schema: SubmitResponseSchema,
        what: 'queries.submit',
      });
    } catch (error) {
      // Counted as not charged: a 402/400/403/429 charges nothing; a lost answer is unknown.
      meter?.unreserve(credits);
      throw error;
    }
    meter?.charged(submitted.request_id, credits);
    return submitted;
  }

  /** Every row of a batch; each row has its own status. */
  async results(requestId: string, options: CallOptions = {}): Promise<Batch> {
    const segment = idSegment('queries.results', 'requestId', requestId);
    const batch = await this.transport.request({
      ...options,
      method: 'GET',
      path: `/llm/results/${segment}/`,
      limiter: this.#config.readLimiter,
      schema: BatchSchema,
      what: `queries.results(${requestId})`,
    });
    // A failed row's credit was refunded when it failed (account-api.md, result row states).
    const meter = creditMeter();
    for (const row of batch.results)
      if (row.status === 'failed') meter?.refunded(requestId, row.id);
    return batch;
  }

  /** Polls until no row is pending; resolves with the settled batch. */
  async wait(requestId: string, options: WaitOptions = {}): Promise<Batch> {
    idSegment('queries.wait', 'requestId', requestId);
    checkWaitOptions('queries.wait', options);
    const baseMs = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    // Waits sharing the read limiter poll at their fair share of it, not in bursts then stalls.
    const share = this.#config.readLimiter?.joinPolling();
    try {
      return await poll((call) => this.results(requestId, { signal: call.signal }), {
        what: `queries.wait(${requestId})`,
        intervalMs: () => share?.intervalMs(baseMs) ?? baseMs,
        timeout: options.timeout ?? DEFAULT_WAIT_TIMEOUT_MS,
        signal: options.signal,
        isDone: (batch) => !isPending(batch),
        onProgress: options.onProgress,
      });
    } finally {
      share?.leave();
    }
  }

  /** `submit` then `wait`. */
  async run(params: SubmitParams, options: WaitOptions = {}): Promise<Batch> {
    checkWaitOptions('queries.run', options);
    const submitted = await this.submit(params, { signal: options.signal });
    return this.wait(submitted.request_id, options);
  }

  /**
   * Any number of questions and locations: split into valid submits (≤20 questions × ≤10
   * locations each), paced by the submit limiter, waited on together, merged.
   */
  runMany(params: RunManyParams, options: RunManyOptions = {}): Promise<RunManyResult> {
    return runMany(this, params, options, this.#config.allowUnavailablePlatforms);
  }
}

/**
 * Polls a submitted batch until no row is pending (DESIGN's `waitForResults`): the same as
 * `api.queries.wait(requestId, options)`, through the client's shared rate limiter.
 */
export function waitForResults(
  api: { queries: Pick<Queries, 'wait'> },
  requestId: string,
  options?: WaitOptions,
): ReturnType<Queries['wait']> {
  return api.queries.wait(requestId, options);
}
