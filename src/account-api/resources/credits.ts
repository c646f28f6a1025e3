/**
 * `GET /llm/balance/` and the cost of a submit. The first balance read of a calendar month also
 * grants that month's free credits.
 */
import type { CallOptions } from '../../http/call-options.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { Resource } from '../../http/resource.js';
import type { Transport } from '../../http/transport.js';
import { type CostEstimate, type CostParams, estimateCost } from '../batches.js';
import { type Balance, BalanceSchema } from '../schemas/queries.js';

export class Credits extends Resource {
  readonly #readLimiter: RateLimiter | undefined;

  constructor(transport: Transport, readLimiter: RateLimiter | undefined) {
    super(transport);
    this.#readLimiter = readLimiter;
  }

  /** Credits available; paced with results reads (100 per minute together). */
  balance(options: CallOptions = {}): Promise<Balance> {
    return this.transport.request({
      ...options,
      method: 'GET',
      path: '/llm/balance/',
      limiter: this.#readLimiter,
      schema: BalanceSchema,
      what: 'balance',
    });
  }

  /**
   * Credits a submit (or the submits `runMany` makes) will take, by the documented rule
   * (questions × platforms per submit). A minimum: the per-location charge is not documented,
   * so `maxCredits` gives the figure if each location were charged too.
   */
  estimate(params: CostParams): CostEstimate {
    return estimateCost(params);
  }
}
