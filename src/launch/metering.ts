/**
 * The process's one usage recorder and its budgets, wired to the tracker's transitions and the
 * account client's credit meter. The public calls: `usage()`, `settleUsage()`, `setBudget()`.
 *
 * In a Playwright Test run, `defineRemoteConfig()` names the run's directory (RUN_DIR_ENV): each
 * process writes its usage there (`usage-<pid>.json`, on every session end and at settle) for
 * the reporter to sum, and the run's budget (RUN_BUDGET_ENV) counts in its `budget.json`.
 */
import { installCreditMeter } from '../account-api/credit-meter.js';
import { BrowserApi } from '../browser-api/index.js';
import { isNotFoundError } from '../http/errors.js';
import { nodeFs, nodePath } from '../http/node-builtins.js';
import { Budget, type BudgetOptions, FileStore } from './budget.js';
import { LaunchError } from './errors.js';
import { tracker } from './tracker.js';
import { type Usage, UsageRecorder } from './usage.js';
import { journalEnded } from './usage-journal.js';

/** The run's directory (usage files, the run budget's counter). */
export const RUN_DIR_ENV = 'REMOTE_BROWSER_RUN_DIR';
/** The run's budget, JSON. */
export const RUN_BUDGET_ENV = 'REMOTE_BROWSER_RUN_BUDGET';

export const recorder = new UsageRecorder();

let processBudget: Budget | undefined;
/** The run's budget, and the environment it was read from (read again when that changes). */
let runBudget: { key: string; budget: Budget | null } | undefined;
/** Pools' budgets, while their pool is open. */
const poolBudgets = new Set<Budget>();

const LIMITS = ['sessions', 'sessionMinutes', 'credits'] as const;

/** Checks a budget's fields: a typed error naming the field and the rule, before anything runs. */
export function checkBudget(what: string, budget: unknown): BudgetOptions {
  if (typeof budget !== 'object' || budget === null || Array.isArray(budget))
    throw new LaunchError(
      `${what}: budget must be an object { sessions?, sessionMinutes?, credits? }`,
    );
  for (const key of Object.keys(budget)) {
    if (!(LIMITS as readonly string[]).includes(key))
      throw new LaunchError(
        `${what}: budget.${key} is not a budget field (sessions, sessionMinutes, credits)`,
      );
    const value = (budget as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const whole = key !== 'sessionMinutes';
    if (typeof value !== 'number' || !(value >= 0) || (whole && !Number.isInteger(value)))
      throw new LaunchError(
        `${what}: budget.${key} must be a ${whole ? 'whole number' : 'number'} >= 0, got ${JSON.stringify(value)}`,
      );
  }
  return budget as BudgetOptions;
}

/**
 * Sets (or with `undefined` clears) this process's budget: launches and query submits past it
 * fail with BudgetExceededError before any request; running sessions are ended when its
 * minutes are spent.
 */
export function setBudget(budget: BudgetOptions | undefined): void {
  processBudget =
    budget === undefined ? undefined : new Budget(checkBudget('setBudget', budget), 'process');
  watchMinutes();
}

/** The run's budget, from the environment `defineRemoteConfig()` set; null outside a run. */
function runBudgetOf(): Budget | null {
  const raw = process.env[RUN_BUDGET_ENV];
  const dir = process.env[RUN_DIR_ENV];
  const key = `${dir}\n${raw}`;
  if (runBudget?.key === key) return runBudget.budget;
  const budget =
    raw && dir
      ? new Budget(checkBudget(RUN_BUDGET_ENV, JSON.parse(raw)), 'run', new FileStore(dir))
      : null;
  runBudget = { key, budget };
  if (budget) watchMinutes();
  return budget;
}

/** The budgets every launch and submit of this process counts against (a pool's counts its own). */
export function activeBudgets(): Budget[] {
  const run = runBudgetOf();
  return [...(processBudget ? [processBudget] : []), ...(run ? [run] : [])];
}

/** Every budget that counts minutes here: the process's, the run's and the open pools'. */
function allBudgets(): Budget[] {
  return [...activeBudgets(), ...poolBudgets];
}

/** A pool's budget counts its sessions' minutes while the pool is open. */
export function addPoolBudget(budget: Budget): () => void {
  poolBudgets.add(budget);
  watchMinutes();
  return () => poolBudgets.delete(budget);
}

/** Reserves a session in each budget, all or none; returns them to call `started`/`unreserveSession` on. */
export function reserveSession(what: string, budgets = activeBudgets()): Budget[] {
  const taken: Budget[] = [];
  try {
    for (const budget of budgets) {
      budget.reserveSession(what);
      taken.push(budget);
    }
  } catch (error) {
    for (const budget of taken) budget.unreserveSession();
    throw error;
  }
  return taken;
}

/** This process's usage: totals, one entry per session and per query batch. */
export function usage(): Usage {
  return recorder.usage();
}

/**
 * Reads the service's own record (`created_at`, `ended_at`) of every ended session whose
 * minutes are still an estimate: one `GET /sessions/{id}` each, so call it after the work (the
 * fixture calls it at worker teardown, never during a test). `api`: default, one built from the
 * REMOTE_BROWSER_* environment.
 */
export async function settleUsage(api?: BrowserApi): Promise<Usage> {
  const ids = recorder.unsettled();
  const settled = new Set(ids);
  if (ids.length > 0) {
    const client = api ?? new BrowserApi();
    try {
      await Promise.all(
        ids.map((id) =>
          client.sessions.retrieve(id, { timeout: 15_000 }).then(
            (session) => recorder.serviceRecord(id, session),
            (error: unknown) => {
              if (!isNotFoundError(error)) throw error;
            },
          ),
        ),
      );
    } finally {
      if (!api) await client.close();
    }
  }
  writeRunUsage();
  const now = recorder.usage();
  for (const session of now.sessions)
    if (settled.has(session.id) && !session.estimated) journalEnded(session, runName());
  return now;
}

/** The journal's name of this run: the Playwright Test run's directory, else this process. */
function runName(): string {
  const dir = process.env[RUN_DIR_ENV];
  return dir ? nodePath().basename(dir) : `pid-${process.pid}`;
}

/** This process's share of the run: `<run dir>/usage-<pid>.json`. No-op outside a run. */
export function writeRunUsage(): void {
  const dir = process.env[RUN_DIR_ENV];
  if (!dir) return;
  try {
    const fs = nodeFs();
    const file = nodePath().join(dir, `usage-${process.pid}.json`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(recorder.usage()));
    fs.renameSync(`${file}.tmp`, file);
  } catch {
    // Usage is a report: a read-only dir must not fail a test.
  }
}

// ── the hooks ────────────────────────────────────────────────────────────────────────────────

tracker.observe({
  create: (_intent, event, createdId) => {
    if (event === 'settled' && createdId !== undefined) recorder.created(createdId);
  },
  lease: (lease, event) => {
    if (event === 'opened') recorder.opened(lease.id);
  },
  ended: (id, by) => recorder.ended(id, by ?? 'close'),
  handedOver: (id) => recorder.ended(id, 'kept'),
  reported: (id, end) => recorder.cause(id, end.reason),
});

recorder.listen({
  ended: (session) => {
    for (const budget of allBudgets()) budget.ended(session.id, session.minutes);
    writeRunUsage();
    journalEnded(session, runName());
  },
});

installCreditMeter({
  reserve(credits, what) {
    const taken: Budget[] = [];
    try {
      for (const budget of activeBudgets()) {
        budget.reserveCredits(credits, what);
        taken.push(budget);
      }
    } catch (error) {
      for (const budget of taken) budget.returnCredits(credits);
      throw error;
    }
  },
  unreserve(credits) {
    for (const budget of activeBudgets()) budget.returnCredits(credits);
  },
  charged(requestId, credits) {
    recorder.charged(requestId, credits);
    writeRunUsage();
  },
  refunded(requestId, rowKey) {
    if (!recorder.refunded(requestId, rowKey)) return;
    for (const budget of activeBudgets()) budget.returnCredits(1);
    writeRunUsage();
  },
});

const WATCH_EVERY_MS = 5_000;
let watcher: ReturnType<typeof setInterval> | undefined;

/** With a `sessionMinutes` budget: ends this process's sessions once the minutes are spent. */
function watchMinutes(): void {
  const watched = () => allBudgets().some((budget) => budget.limits.sessionMinutes !== undefined);
  if (watcher || !watched()) return;
  watcher = setInterval(() => {
    if (!watched()) {
      clearInterval(watcher);
      watcher = undefined;
      return;
    }
    endIfMinutesOut();
  }, WATCH_EVERY_MS);
  watcher.unref();
}

/** Ends this process's running sessions that a budget whose minutes are spent counts. */
export function endIfMinutesOut(): boolean {
  const spent = allBudgets().find((budget) => budget.minutesOut());
  if (!spent) return false;
  const counted = new Set(spent.runningIds());
  for (const lease of tracker.leases()) {
    if (!counted.has(lease.id)) continue;
    recorder.cause(lease.id, 'budget');
    process.emitWarning(
      `remote-browser: session ${lease.id} ended by the library: the ${spent.scope} budget of ${spent.limits.sessionMinutes} session minutes is spent`,
      { type: 'RemoteBrowserWarning', code: 'REMOTE_BROWSER_BUDGET_SPENT' },
    );
    lease.release().catch(() => undefined);
  }
  return true;
}
