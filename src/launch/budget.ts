/**
 * A budget: at most `sessions` sessions, `sessionMinutes` session minutes and `credits` query
 * credits, for a process, a pool or a Playwright Test run. A launch or a submit that would pass
 * it is refused before any request (BudgetExceededError); what was reserved and never charged
 * (a refused create, a 402) is given back.
 *
 * A run's budget is shared by its worker processes through one JSON counter in the run's
 * directory, read and written under a lock directory (`mkdir` is atomic across processes), so
 * two workers can never both take the last session.
 */
import { BudgetExceededError, type BudgetLimit } from '../http/budget-exceeded.js';
import { nodeFs, nodePath } from '../http/node-builtins.js';

export interface BudgetOptions {
  /** Most sessions created (re-attaches are not new sessions). Default: no limit. */
  sessions?: number;
  /** Most session minutes, running sessions included; at the limit they are ended. Default: no limit. */
  sessionMinutes?: number;
  /** Most query credits charged, less those refunded. Default: no limit. */
  credits?: number;
}

/** What a budget has counted. */
export interface BudgetState {
  sessions: number;
  credits: number;
  /** Minutes of sessions that ended. */
  endedMinutes: number;
  /** Running sessions: id → start, epoch ms. */
  running: Record<string, number>;
  /** Set once a limit refused something: the run's reason for stopping. */
  stopped?: string;
}

export interface BudgetStore {
  update<T>(change: (state: BudgetState) => T): T;
  read(): BudgetState;
}

const empty = (): BudgetState => ({ sessions: 0, credits: 0, endedMinutes: 0, running: {} });

export class MemoryStore implements BudgetStore {
  #state = empty();
  update<T>(change: (state: BudgetState) => T): T {
    return change(this.#state);
  }
  read(): BudgetState {
    return structuredClone(this.#state);
  }
}

const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 10_000;

/** The counter of a run, in `dir`/budget.json, shared by every process of the run. */
export class FileStore implements BudgetStore {
  readonly #file: string;
  readonly #lock: string;

  constructor(dir: string) {
    this.#file = nodePath().join(dir, 'budget.json');
    this.#lock = nodePath().join(dir, 'budget.lock');
    nodeFs().mkdirSync(dir, { recursive: true });
  }

  read(): BudgetState {
    try {
      return { ...empty(), ...(JSON.parse(nodeFs().readFileSync(this.#file, 'utf8')) as object) };
    } catch {
      return empty();
    }
  }

  update<T>(change: (state: BudgetState) => T): T {
    const fs = nodeFs();
    this.#acquire();
    try {
      const state = this.read();
      let result: { value: T } | { error: unknown };
      try {
        result = { value: change(state) };
      } catch (error) {
        // A refusal still records why the run stopped.
        result = { error };
      }
      const temp = `${this.#file}.${process.pid}.tmp`;
      fs.writeFileSync(temp, JSON.stringify(state));
      fs.renameSync(temp, this.#file);
      if ('error' in result) throw result.error;
      return result.value;
    } finally {
      fs.rmSync(this.#lock, { recursive: true, force: true });
    }
  }

  #acquire(): void {
    const fs = nodeFs();
    const until = Date.now() + LOCK_WAIT_MS;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (;;) {
      try {
        fs.mkdirSync(this.#lock);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const held = fs.statSync(this.#lock, { throwIfNoEntry: false });
      // Released between the mkdir and the stat: try again at once. (Reading a missing lock as
      // stale removed the lock another process had just taken, and both counted at once.)
      if (!held) continue;
      if (Date.now() - held.mtimeMs > LOCK_STALE_MS) this.#takeOver();
      else if (Date.now() > until) throw new Error(`budget: ${this.#lock} stayed locked`);
      else Atomics.wait(pause, 0, 0, 2);
    }
  }

  /**
   * A holder that died mid-update leaves the lock: it is taken over once clearly stale. It is
   * moved aside first (a rename: of two processes that saw it stale, one wins) and then removed.
   */
  #takeOver(): void {
    const fs = nodeFs();
    const aside = `${this.#lock}.${process.pid}.stale`;
    try {
      fs.renameSync(this.#lock, aside);
    } catch {
      return; // another process took it over, or its holder released it
    }
    fs.rmSync(aside, { recursive: true, force: true });
  }
}

const MINUTE = 60_000;

export class Budget {
  readonly limits: BudgetOptions;
  readonly scope: 'process' | 'pool' | 'run';
  readonly #store: BudgetStore;
  readonly #now: () => number;

  constructor(
    limits: BudgetOptions,
    scope: Budget['scope'],
    store: BudgetStore = new MemoryStore(),
    now: () => number = Date.now,
  ) {
    this.limits = limits;
    this.scope = scope;
    this.#store = store;
    this.#now = now;
  }

  /** Minutes spent: ended sessions plus the running ones so far. */
  minutesSpent(state = this.#store.read()): number {
    const now = this.#now();
    const running = Object.values(state.running).reduce((n, at) => n + (now - at) / MINUTE, 0);
    return state.endedMinutes + running;
  }

  /** Takes one session, or throws before any request. */
  reserveSession(what: string): void {
    this.#store.update((state) => {
      this.#check(what, state, 'sessions', state.sessions, 1);
      const minutes = this.minutesSpent(state);
      if (this.limits.sessionMinutes !== undefined && minutes >= this.limits.sessionMinutes)
        this.#refuse(what, state, 'sessionMinutes', minutes, 0);
      state.sessions++;
    });
  }

  /** A reserved create made no session (refused): the reservation is given back. */
  unreserveSession(): void {
    this.#store.update((state) => {
      state.sessions = Math.max(0, state.sessions - 1);
    });
  }

  started(id: string, atMs = this.#now()): void {
    this.#store.update((state) => {
      state.running[id] = atMs;
    });
  }

  /** `id` ended after `minutes` (the service's record when known). */
  ended(id: string, minutes: number): void {
    this.#store.update((state) => {
      if (!(id in state.running)) return;
      delete state.running[id];
      state.endedMinutes += minutes;
    });
  }

  /** True when the minutes are spent: running sessions must end. */
  minutesOut(): boolean {
    const limit = this.limits.sessionMinutes;
    if (limit === undefined) return false;
    const state = this.#store.read();
    if (this.minutesSpent(state) < limit) return false;
    this.#store.update((s) => {
      s.stopped ??= `the ${this.scope} budget of ${limit} session minutes was spent`;
    });
    return true;
  }

  reserveCredits(credits: number, what: string): void {
    this.#store.update((state) => {
      this.#check(what, state, 'credits', state.credits, credits);
      state.credits += credits;
    });
  }

  /** Credits given back: never charged (a refused submit), or refunded (a failed row). */
  returnCredits(credits: number): void {
    this.#store.update((state) => {
      state.credits = Math.max(0, state.credits - credits);
    });
  }

  /** The running sessions it counts (for a run: every worker's). */
  runningIds(): string[] {
    return Object.keys(this.#store.read().running);
  }

  /** Why the budget stopped something, once it has. */
  stopped(): string | undefined {
    return this.#store.read().stopped;
  }

  #check(what: string, state: BudgetState, limit: BudgetLimit, spent: number, wanted: number) {
    const allowed = this.limits[limit];
    if (allowed !== undefined && spent + wanted > allowed)
      this.#refuse(what, state, limit, spent, wanted);
  }

  #refuse(what: string, state: BudgetState, limit: BudgetLimit, spent: number, wanted: number) {
    const error = new BudgetExceededError(what, {
      limit,
      scope: this.scope,
      allowed: this.limits[limit] as number,
      spent,
      wanted,
    });
    state.stopped ??= error.message;
    throw error;
  }
}
