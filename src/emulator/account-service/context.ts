/**
 * What the account service's route files share, built once by `createAccountService()`:
 * options, clock, the accounts it reads, its own state.
 */
import type { IncomingMessage } from 'node:http';
import type { Events } from './events.js';
import type { ResolvedAccountOptions } from './options.js';
import type { AccountRateLimits } from './rate-limits.js';
import { notPurchased, unauthorized } from './replies.js';
import type { AccountStates } from './state.js';
import type { AccountClock, AccountDirectory, AccountRecord } from './types.js';

export interface AccountServiceContext {
  options: ResolvedAccountOptions;
  clock: AccountClock;
  accounts: AccountDirectory;
  states: AccountStates;
  limits: AccountRateLimits;
  events: Events;
  /** Draws the per-row random numbers (seeded). */
  random(): number;
}

export function nowIso(clock: AccountClock): string {
  return new Date(clock.now()).toISOString();
}

/**
 * The account behind `Authorization: x-api-key <KEY>`, or the 401 reply. The scheme word is
 * matched case-insensitively; anything else (`Bearer`, a bare key) is refused.
 */
export function authenticate(ctx: AccountServiceContext, req: IncomingMessage): AccountRecord {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^x-api-key\s+(\S+)\s*$/i.exec(header) : null;
  const account = match?.[1] ? ctx.accounts.byApiKey(match[1]) : undefined;
  if (!account) throw unauthorized();
  return account;
}

/** The query endpoints (balance included) need a completed credit-pack purchase. */
export function requirePurchase(account: AccountRecord): void {
  if (!account.purchased) throw notPurchased();
}
