/** `GET /llm/balance/`: also grants the month's free credits on the first read of a month. */
import type { CallOptions } from '../http/call-options.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import type { Transport } from '../http/transport.js';
import { type Balance, balanceSchema } from './schemas.js';

export class BalanceResource {
  constructor(
    private readonly transport: Transport,
    private readonly readLimiter: RateLimiter | undefined,
  ) {}

  read(options: CallOptions = {}): Promise<Balance> {
    return this.transport.request({
      ...options,
      method: 'GET',
      path: '/llm/balance/',
      limiter: this.readLimiter,
      schema: balanceSchema,
      what: 'balance',
    });
  }
}
