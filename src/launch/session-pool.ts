/**
 * Warm sessions, library-agnostic: a pool launches sessions ahead of need, so that taking one
 * costs no session start. Each warm session is an ordinary launched browser (in the ledger, under
 * the exit hooks and the watchdog), ended by the adapter's own `close()`, exactly once.
 *
 * Rules that keep a pool cheap and polite (docs/launch.md, "Session pools"):
 * - a refill never waits for a slot, and the first 429 stops warming for good: an account at its
 *   session limit gains nothing from warming, and a refill would take a freed slot from another
 *   worker queued for it. `launch()` with nothing warm launches and queues like everyone else;
 * - at most `size` sessions are warm or warming at once; a taken one is replaced in the background;
 * - a warm session older than `maxWarmAgeMs` is ended and replaced rather than handed out;
 * - one idle for `checkWarmAfterMs` or longer, or whose connection dropped, is checked with the
 *   service before it is handed out (the service may have ended it for a reason the pool cannot
 *   see); an ended one is discarded, and one the service has ended is never re-attached. A check
 *   the service does not answer leaves it to the connection.
 */

import { isBudgetExceededError } from '../http/budget-exceeded.js';
import { createDebug } from '../http/debug.js';
import { isRateLimitError } from '../http/errors.js';
import { sessionIdOf } from './browser-registry.js';
import { Budget } from './budget.js';
import { LaunchError } from './errors.js';
import { addPoolBudget, checkBudget, recorder } from './metering.js';
import {
  DEFAULT_CHECK_WARM_AFTER_MS,
  type RemoteSessionPool,
  type SessionPoolOptions,
  type SessionPoolStats,
} from './pool-options.js';
import { reattachTries } from './reconnect-window.js';

const debug = createDebug('pool');

/** What the pool needs from a library adapter. */
export interface PoolDriver<B> {
  /** Launches one session; `waitForSlot: false` for refills. */
  launch(waitForSlot: boolean): Promise<B>;
  /** Ends the session (the adapter's patched `close()`: deletes it exactly once). */
  close(browser: B): Promise<void>;
  /** False once the browser has disconnected (a drop, or its session ended on the service's side). */
  isAlive(browser: B): boolean;
  /**
   * A new browser on the same session when `browser`'s connection dropped and its session is
   * kept for a re-attach (reconnect-window.ts); undefined when it is not.
   */
  reattach(browser: B): Promise<B | undefined>;
  /** True while `browser`'s connection has dropped without close() (its session may be kept). */
  dropped(browser: B): boolean;
  /**
   * Asks the service whether `browser`'s session still runs: false once it has ended (having
   * said why); rejects when the service did not answer within `timeoutMs`.
   */
  stillRunning(browser: B, timeoutMs: number): Promise<boolean>;
}

interface Warm<B> {
  startedAt: number;
  /** When its launch finished: from then on it is idle. */
  readyAt?: number;
  /** Resolves to the browser, or undefined when the launch failed (the failure is handled). */
  ready: Promise<B | undefined>;
}

/** The public options (pool-options.ts) with their defaults resolved, and a clock for tests. */
type PoolConfig = SessionPoolOptions & { size: number; maxWarmAgeMs: number; now?: () => number };

const MAX_BACKOFF_MS = 30_000;
/** How long a warm session's check may take before the connection decides instead. */
const CHECK_TIMEOUT_MS = 5_000;

export class SessionPool<B> implements RemoteSessionPool<B> {
  readonly #driver: PoolDriver<B>;
  readonly #size: number;
  readonly #maxWarmAgeMs: number;
  readonly #checkWarmAfterMs: number;
  readonly #now: () => number;
  readonly #budget: Budget | undefined;
  readonly #unbudget: (() => void) | undefined;
  readonly #warm: Warm<B>[] = [];
  #closed: Promise<void> | undefined;
  #backoffUntil = 0;
  /** Set by the first 429: the account is at its limit, warming would only take others' slots. */
  #saturated = false;
  #backoffTimer: NodeJS.Timeout | undefined;
  #failures = 0;
  #stats = { created: 0, handedOut: 0, discarded: 0, reattached: 0 };
  /** Browsers handed out, whose session may still be re-attached after a drop. */
  readonly #out = new Set<B>();

  constructor(driver: PoolDriver<B>, options: PoolConfig) {
    this.#driver = driver;
    if (options.budget) {
      this.#budget = new Budget(checkBudget('SessionPool', options.budget), 'pool');
      this.#unbudget = addPoolBudget(this.#budget);
    }
    this.#size = options.size;
    this.#maxWarmAgeMs = options.maxWarmAgeMs;
    this.#checkWarmAfterMs = options.checkWarmAfterMs ?? DEFAULT_CHECK_WARM_AFTER_MS;
    this.#now = options.now ?? Date.now;
    this.#fill();
  }

  get stats(): SessionPoolStats {
    return { ...this.#stats, warm: this.#warm.length };
  }

  /**
   * A browser on a warm session when one is ready or warming, else a normal launch. The
   * browser's `close()` deletes its session as always; the pool refills in the background.
   */
  async launch(): Promise<B> {
    if (this.#closed) throw new LaunchError('SessionPool: launch() after close(): create another');
    // A handed-out browser whose connection dropped: its session, still running, comes first.
    // Only then is anything awaited first: a launch with nothing dropped starts as it always did.
    if ([...this.#out].some((browser) => this.#driver.dropped(browser))) {
      const again = await this.#reattachDropped();
      if (again) return this.#handOut(again);
    }
    for (let next = this.#warm.shift(); next; next = this.#warm.shift()) {
      this.#fill();
      const warm = await next.ready;
      const browser = warm !== undefined && !this.#closed ? await this.#usable(next, warm) : warm;
      if (browser === undefined) continue;
      if (this.#closed) {
        await this.#discard(browser, 'pool closed');
        break;
      }
      const id = sessionIdOf(browser);
      if (id !== undefined) recorder.prewarm(id, 'used');
      return this.#handOut(browser);
    }
    if (this.#closed)
      throw new LaunchError('SessionPool: closed while launch() was waiting; nothing was launched');
    const browser = await this.#launchCounted(true);
    this.#stats.created++;
    this.#fill();
    return this.#handOut(browser);
  }

  /** Ends every warm session (exactly once each) and stops refilling. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      clearTimeout(this.#backoffTimer);
      this.#unbudget?.();
      const warm = this.#warm.splice(0);
      await Promise.all(
        warm.map(async (entry) => {
          const browser = await entry.ready;
          if (browser !== undefined) await this.#discard(browser, 'pool closed');
        }),
      );
    })();
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #handOut(browser: B): B {
    this.#stats.handedOut++;
    this.#out.add(browser);
    return browser;
  }

  /**
   * The warm browser, or a new one re-attached to its session after a drop, when it may be
   * handed out; undefined when it was discarded (too old, ended, or disconnected for good).
   * The service's word comes first: a session it has ended is never re-attached.
   */
  async #usable(entry: Warm<B>, browser: B): Promise<B | undefined> {
    const tooOld = () => this.#now() - entry.startedAt > this.#maxWarmAgeMs;
    const idleMs = this.#now() - (entry.readyAt ?? entry.startedAt);
    // A dropped one is always checked before a re-attach: the drop's own lookup may have
    // answered already, and for a session kept in its window the check is one GET.
    const check =
      this.#driver.dropped(browser) ||
      (idleMs >= this.#checkWarmAfterMs && this.#driver.isAlive(browser));
    if (!tooOld() && check && (await this.#stillRunning(browser)) === false) {
      this.#discard(browser, 'its session has ended');
      return undefined;
    }
    if (this.#driver.dropped(browser) && !tooOld()) {
      const reattached = await this.#reattach(browser);
      if (reattached) return reattached;
    }
    if (tooOld() || !this.#driver.isAlive(browser)) {
      this.#discard(browser, 'too old or no longer connected');
      return undefined;
    }
    return browser;
  }

  /** The service's answer on a warm session; undefined when it gave none (the connection decides). */
  #stillRunning(browser: B): Promise<boolean | undefined> {
    return this.#driver.stillRunning(browser, CHECK_TIMEOUT_MS).catch((error: Error) => {
      debug(`checking a warm session failed: ${error.message}; its connection decides`);
      return undefined;
    });
  }

  /** Re-attaches the first handed-out browser that dropped with its session kept; forgets the closed. */
  async #reattachDropped(): Promise<B | undefined> {
    for (const browser of [...this.#out]) {
      if (this.#driver.isAlive(browser)) continue;
      this.#out.delete(browser);
      if (!this.#driver.dropped(browser)) continue;
      const again = await this.#reattach(browser);
      if (again) return again;
    }
    return undefined;
  }

  async #reattach(browser: B): Promise<B | undefined> {
    const again = await reattachTries(() => this.#driver.reattach(browser));
    if (again) this.#stats.reattached++;
    return again;
  }

  #discard(browser: B, why: string): Promise<void> {
    this.#stats.discarded++;
    debug(`ending a warm session: ${why}`);
    const failed = (error: Error) => debug(`ending a warm session failed: ${error.message}`);
    return this.#driver.close(browser).catch(failed);
  }

  #backOff(ms: number): void {
    this.#backoffUntil = this.#now() + ms;
    clearTimeout(this.#backoffTimer);
    this.#backoffTimer = setTimeout(() => {
      this.#backoffUntil = 0;
      this.#fill();
    }, ms);
    // A pool waiting to refill must never keep the process alive.
    this.#backoffTimer.unref();
  }

  #fill(): void {
    while (
      !this.#closed &&
      !this.#saturated &&
      this.#warm.length < this.#size &&
      this.#now() >= this.#backoffUntil
    ) {
      const entry: Warm<B> = { startedAt: this.#now(), ready: Promise.resolve(undefined) };
      entry.ready = this.#warmOne(entry);
      this.#warm.push(entry);
    }
  }

  async #warmOne(entry: Warm<B>): Promise<B | undefined> {
    try {
      const browser = await this.#launchCounted(false);
      const id = sessionIdOf(browser);
      if (id !== undefined) recorder.prewarm(id, 'unused');
      this.#stats.created++;
      this.#failures = 0;
      entry.readyAt = this.#now();
      if (this.#closed) {
        // close() already took the list: this one was never handed out, end it here.
        await this.#discard(browser, 'pool closed while it was warming');
        return undefined;
      }
      return browser;
    } catch (error) {
      const index = this.#warm.indexOf(entry);
      if (index >= 0) this.#warm.splice(index, 1);
      const limit = isRateLimitError(error) || isRateLimitError((error as Error).cause);
      if (limit || isBudgetExceededError(error)) {
        debug(
          `warming stopped: ${limit ? 'the account is at its session limit' : 'a budget is spent'}`,
        );
        this.#saturated = true;
      } else {
        this.#failures++;
        debug(`warming failed: ${(error as Error).message}`);
        this.#backOff(Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(this.#failures, 5)));
      }
      return undefined;
    }
  }

  /** The driver's launch, counted in the pool's budget (refused before any request). */
  async #launchCounted(waitForSlot: boolean): Promise<B> {
    this.#budget?.reserveSession('SessionPool');
    const browser = await this.#driver.launch(waitForSlot).catch((error: unknown) => {
      this.#budget?.unreserveSession();
      throw error;
    });
    const id = sessionIdOf(browser);
    if (id !== undefined) this.#budget?.started(id);
    return browser;
  }
}
