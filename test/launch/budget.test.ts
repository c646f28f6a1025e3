/**
 * Budgets (budget.ts): each limit refuses before it is passed, with the error naming the
 * budget and what was spent; what was reserved and never charged is given back; a run's
 * counter in its directory is shared by processes, and never hands out more than the limit.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetExceededError, isBudgetExceededError } from '../../src/http/budget-exceeded.js';
import { Budget, FileStore } from '../../src/launch/budget.js';
import { runChildScript } from './child-script.js';

const MINUTE = 60_000;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rb-budget-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const refusal = (run: () => void): BudgetExceededError => {
  try {
    run();
  } catch (error) {
    expect(isBudgetExceededError(error)).toBe(true);
    return error as BudgetExceededError;
  }
  throw new Error('not refused');
};

describe('Budget', () => {
  it('refuses the session past `sessions`, naming the budget and what was spent', () => {
    const budget = new Budget({ sessions: 2 }, 'process');
    budget.reserveSession('launchRemote');
    budget.reserveSession('launchRemote');
    const error = refusal(() => budget.reserveSession('launchRemote'));
    expect(error).toMatchObject({ limit: 'sessions', scope: 'process', allowed: 2, spent: 2 });
    expect(error.message).toBe(
      'launchRemote: over the process budget of 2 sessions (2 spent, this call needs 1 more); nothing was sent',
    );
    expect(budget.stopped()).toBe(error.message);
  });

  it('gives a reservation back when the create made nothing', () => {
    const budget = new Budget({ sessions: 1 }, 'pool');
    budget.reserveSession('x');
    budget.unreserveSession();
    expect(() => budget.reserveSession('x')).not.toThrow();
  });

  it('counts the minutes of running and ended sessions, and refuses a launch once they are spent', () => {
    let now = 0;
    const budget = new Budget({ sessionMinutes: 10 }, 'process', undefined, () => now);
    budget.reserveSession('x');
    budget.started('a', now);
    now += 4 * MINUTE;
    budget.ended('a', 4);
    budget.reserveSession('x');
    budget.started('b', now);
    now += 5 * MINUTE;
    expect(budget.minutesSpent()).toBe(9);
    expect(budget.minutesOut()).toBe(false);
    expect(budget.runningIds()).toEqual(['b']);
    now += MINUTE;
    expect(budget.minutesOut()).toBe(true);
    expect(budget.stopped()).toBe('the process budget of 10 session minutes was spent');
    const error = refusal(() => budget.reserveSession('x'));
    expect(error).toMatchObject({ limit: 'sessionMinutes', allowed: 10, spent: 10 });
  });

  it('ignores the end of a session it never counted', () => {
    const budget = new Budget({ sessionMinutes: 10 }, 'process');
    budget.ended('stranger', 100);
    expect(budget.minutesSpent()).toBe(0);
  });

  it('refuses credits past the budget and takes back what was returned', () => {
    const budget = new Budget({ credits: 3 }, 'run');
    budget.reserveCredits(2, 'queries.submit');
    const error = refusal(() => budget.reserveCredits(2, 'queries.submit'));
    expect(error).toMatchObject({ limit: 'credits', allowed: 3, spent: 2, wanted: 2 });
    budget.returnCredits(1);
    expect(() => budget.reserveCredits(2, 'queries.submit')).not.toThrow();
  });

  it('has no limit for a field left out', () => {
    const budget = new Budget({ credits: 0 }, 'process');
    for (let i = 0; i < 50; i++) budget.reserveSession('x');
    expect(() => budget.reserveCredits(1, 'submit')).toThrow(BudgetExceededError);
  });
});

describe('FileStore', () => {
  it('keeps the count in the run directory, where a second process sees it, with the reason it stopped', () => {
    const dir = tempDir();
    const one = new Budget({ sessions: 1 }, 'run', new FileStore(dir));
    const two = new Budget({ sessions: 1 }, 'run', new FileStore(dir));
    one.reserveSession('worker 1');
    expect(() => two.reserveSession('worker 2')).toThrow(BudgetExceededError);
    const state = JSON.parse(readFileSync(join(dir, 'budget.json'), 'utf8'));
    expect(state).toMatchObject({ sessions: 1 });
    expect(state.stopped).toMatch(/^worker 2: over the run budget of 1 sessions/);
  });

  it('takes over a lock its holder left behind once it is stale', () => {
    const dir = tempDir();
    const lock = join(dir, 'budget.lock');
    mkdirSync(lock);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const budget = new Budget({ sessions: 2 }, 'run', new FileStore(dir));
    budget.reserveSession('after a crash');
    expect(existsSync(lock)).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'budget.json'), 'utf8')).sessions).toBe(1);
  });

  it('never hands out more than the limit to processes taking at once', async () => {
    const dir = tempDir();
    const children = [1, 2, 3, 4].map(() =>
      runChildScript('budget-reserve.ts', { BUDGET_DIR: dir, BUDGET_SESSIONS: '400' }),
    );
    await Promise.all(children.map((c) => c.exited));
    const took = children.map((c) => Number(/took (\d+)/.exec(c.output())?.[1]));
    expect(took.reduce((a, b) => a + b, 0)).toBe(400);
    expect(JSON.parse(readFileSync(join(dir, 'budget.json'), 'utf8')).sessions).toBe(400);
  }, 60_000);
});
