/**
 * What the account service's route files share, built once by `createAccountService()`:
 * options, clock, the accounts it reads, its own state.
 */

import type { ResolvedAccountOptions } from './account-options.js';
import type { Events } from './events.js';
import type { AccountRateLimits } from './rate-limits.js';
import type { AccountStates } from './state.js';
import type { AccountClock, AccountDirectory } from './types.js';

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
