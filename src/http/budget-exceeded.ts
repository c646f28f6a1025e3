/**
 * A launch or a query submit that a `budget` (process, pool or Playwright Test run) refuses:
 * thrown before any request, so nothing is charged past the budget. Lives beside the other
 * error classes, below both clients, because the account client's submit throws it too.
 */

/** Which limit of a budget was reached. */
export type BudgetLimit = 'sessions' | 'sessionMinutes' | 'credits';

export interface BudgetExceededDetails {
  /** The limit reached. */
  limit: BudgetLimit;
  /** Whose budget: `'process'`, `'pool'` or `'run'` (a Playwright Test run, across workers). */
  scope: 'process' | 'pool' | 'run';
  /** The budget's value for `limit`. */
  allowed: number;
  /** What was spent (or reserved) under `limit` before this call. */
  spent: number;
  /** What this call would have added. */
  wanted: number;
}

export class BudgetExceededError extends Error {
  override name = 'BudgetExceededError';
  readonly limit: BudgetLimit;
  readonly scope: BudgetExceededDetails['scope'];
  readonly allowed: number;
  readonly spent: number;
  readonly wanted: number;

  constructor(what: string, details: BudgetExceededDetails) {
    const unit = details.limit === 'sessionMinutes' ? ' min' : '';
    const round = (n: number) => Math.round(n * 100) / 100;
    super(
      `${what}: over the ${details.scope} budget of ${details.allowed}${unit} ${details.limit} ` +
        `(${round(details.spent)}${unit} spent, this call needs ${round(details.wanted)}${unit} more); ` +
        'nothing was sent',
    );
    this.limit = details.limit;
    this.scope = details.scope;
    this.allowed = details.allowed;
    this.spent = details.spent;
    this.wanted = details.wanted;
  }
}

export function isBudgetExceededError(error: unknown): error is BudgetExceededError {
  return (
    error instanceof BudgetExceededError ||
    (error instanceof Error && error.name === 'BudgetExceededError')
  );
}
