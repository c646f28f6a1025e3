/**
 * Per-account request-rate limits on the emulator clock: a sliding window log, so "20 per
 * minute" holds for any 60 s span, which is also how the client's limiter counts.
 */
import { rateLimited } from '../server/http-error.js';

export type RateGroup = 'submit' | 'read';

const GROUP_NAMES: Record<RateGroup, string> = { submit: 'submit', read: 'balance and results' };

export class AccountRateLimits {
  readonly #starts = new Map<string, number[]>();

  constructor(
    private readonly limits: { submit: number; read: number; windowMs: number } | false,
    private readonly now: () => number,
  ) {}

  /** Counts one request of `group` for `accountId`, or throws the 429 reply. */
  take(accountId: string, group: RateGroup): void {
    if (!this.limits) return;
    const limit = this.limits[group];
    const key = `${accountId}:${group}`;
    const now = this.now();
    const cutoff = now - this.limits.windowMs;
    const starts = (this.#starts.get(key) ?? []).filter((t) => t > cutoff);
    if (starts.length >= limit) {
      const waitMs = (starts[0] as number) + this.limits.windowMs - now;
      this.#starts.set(key, starts);
      throw rateLimited(GROUP_NAMES[group], limit, Math.max(1, Math.ceil(waitMs / 1000)));
    }
    starts.push(now);
    this.#starts.set(key, starts);
  }

  reset(): void {
    this.#starts.clear();
  }
}
