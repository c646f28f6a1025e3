/**
 * API-key authentication of the account service, and the purchase its query endpoints need.
 * Messages never repeat what was sent.
 */
import type { IncomingMessage } from 'node:http';
import { accountUnauthorized, notPurchased } from '../server/http-error.js';
import type { AccountServiceContext } from './context.js';
import type { AccountRecord } from './types.js';

/**
 * The account behind `Authorization: x-api-key <KEY>`, or the 401 reply. The scheme word is
 * matched case-insensitively; anything else (`Bearer`, a bare key) is refused.
 */
export function authenticate(ctx: AccountServiceContext, req: IncomingMessage): AccountRecord {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^x-api-key\s+(\S+)\s*$/i.exec(header) : null;
  const account = match?.[1] ? ctx.accounts.byApiKey(match[1]) : undefined;
  if (!account) throw accountUnauthorized();
  return account;
}

/** The query endpoints (balance included) need a completed credit-pack purchase. */
export function requirePurchase(account: AccountRecord): void {
  if (!account.purchased) throw notPurchased();
}
