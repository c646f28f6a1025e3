/**
 * The narrow hook through which the account client reports the credits its submits charge and
 * its failed rows refund, and asks a budget before a submit. The usage and budget modules
 * (src/launch/usage.ts, budget.ts) install it; without them nothing is counted. It is kept on
 * `globalThis` under a registered symbol so that the ESM and CJS copies of the package in one
 * process (a config loaded as CJS, a test file as ESM) count into one place.
 */

export interface CreditMeter {
  /** Before a submit that charges `credits`: throws (BudgetExceededError) to refuse it. */
  reserve(credits: number, what: string): void;
  /** The submit was refused or failed without charging: give the reservation back. */
  unreserve(credits: number): void;
  /** The service accepted the batch: `credits` were charged at submit. */
  charged(requestId: string, credits: number): void;
  /** A row of the batch failed: its credit was refunded (each row key counted once). */
  refunded(requestId: string, rowKey: string): void;
}

const KEY = Symbol.for('remote-browser.credit-meter');
type Holder = typeof globalThis & { [KEY]?: CreditMeter };

export function creditMeter(): CreditMeter | undefined {
  return (globalThis as Holder)[KEY];
}

export function installCreditMeter(meter: CreditMeter): void {
  (globalThis as Holder)[KEY] = meter;
}

/**
 * What a submit charges: questions x platforms credits (account-api.md, POST /llm/submit/ rule
 * 3; how locations change it is not shown, so they are not counted).
 */
export function creditsOf(body: {
  questions: readonly unknown[];
  platforms: readonly unknown[];
}): number {
  return body.questions.length * body.platforms.length;
}
