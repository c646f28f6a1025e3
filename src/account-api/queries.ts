/**
 * The query service: submit a batch, read its rows, wait while any row is pending. Answers come
 * only by polling (there is no webhook for results), so every poll goes through the client's
 * shared balance+results limiter: many batches waited on at once stay within 100/min together.
 */
import type { CallOptions } from '../http/call-options.js';
import { poll } from '../http/polling.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import { parseRequest } from '../http/request-validation.js';
import type { Transport } from '../http/transport.js';
import { type RunManyOptions, type RunManyResult, runMany } from './run-many.js';
import {
  type Batch,
  batchSchema,
  type RunManyParams,
  type SubmitParams,
  type SubmitResponse,
  submitParamsSchema,
  submitResponseSchema,
} from './schemas.js';
import { rejectUnavailablePlatforms } from './validate.js';

export interface WaitOptions extends CallOptions {
  /**
   * Milliseconds to wait for every row to settle. Default 600000 (10 minutes): most rows take
   * 20–90 s, "occasionally longer". `0` or `Infinity` waits forever.
   */
  timeout?: number | undefined;
  /** Pause between polls. Default 3000 ms (the spec: "every few seconds"). */
  intervalMs?: number | undefined;
  /** Called with every polled batch, the final one included. */
  onProgress?: ((batch: Batch) => void) | undefined;
}

export interface QueriesConfig {
  transport: Transport;
  submitLimiter: RateLimiter | undefined;
  readLimiter: RateLimiter | undefined;
  allowUnavailablePlatforms: boolean;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 600_000;
export const DEFAULT_POLL_INTERVAL_MS = 3_000;

/** True while any row of the batch is still `pending`. */
export function isPending(batch: Batch): boolean {
  return batch.results.some((row) => row.status === 'pending');
}

export class Queries {
  constructor(private readonly config: QueriesConfig) {}

  /**
   * Submits one batch (≤20 questions, ≤10 locations). Validated first: an invalid call sends
   * nothing. Never retried after it may have reached the service (a retry could charge twice).
   */
  async submit(params: SubmitParams, options: CallOptions = {}): Promise<SubmitResponse> {
    const body = parseRequest('queries.submit', submitParamsSchema, params);
    rejectUnavailablePlatforms(
      'queries.submit',
      body.platforms,
      this.config.allowUnavailablePlatforms,
    );
    return this.config.transport.request({
      ...options,
      method: 'POST',
      path: '/llm/submit/',
      body,
      limiter: this.config.submitLimiter,
      schema: submitResponseSchema,
      what: 'queries.submit',
    });
  }

  /** Every row of a batch; each row has its own status. */
  results(requestId: string, options: CallOptions = {}): Promise<Batch> {
    return this.config.transport.request({
      ...options,
      method: 'GET',
      path: `/llm/results/${encodeURIComponent(requestId)}/`,
      limiter: this.config.readLimiter,
      schema: batchSchema,
      what: `queries.results(${requestId})`,
    });
  }

  /** Polls until no row is pending; resolves with the settled batch. */
  wait(requestId: string, options: WaitOptions = {}): Promise<Batch> {
    return poll((call) => this.results(requestId, { signal: call.signal }), {
      what: `queries.wait(${requestId})`,
      intervalMs: options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      timeout: options.timeout ?? DEFAULT_WAIT_TIMEOUT_MS,
      signal: options.signal,
      isDone: (batch) => !isPending(batch),
      onProgress: options.onProgress,
    });
  }

  /** `submit` then `wait`. */
  async run(params: SubmitParams, options: WaitOptions = {}): Promise<Batch> {
    const submitted = await this.submit(params, { signal: options.signal });
    return this.wait(submitted.request_id, options);
  }

  /**
   * Any number of questions and locations: split into valid submits (≤20 questions × ≤10
   * locations each), paced by the submit limiter, waited on together, merged.
   */
  runMany(params: RunManyParams, options: RunManyOptions = {}): Promise<RunManyResult> {
    return runMany(this, params, options, this.config.allowUnavailablePlatforms);
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
