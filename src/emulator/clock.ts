/**
 * The emulator clock: real time plus an offset that the admin API can move forward. Every
 * time-based rule (idle and maximum lifetime, retention, token expiry, signed URL expiry,
 * recording publication) reads this clock, so a test can jump days ahead in one call.
 *
 * Timers are scheduled at an emulator instant and fire when real time gets there OR when the
 * clock is advanced past it, whichever comes first.
 */

/** Node caps setTimeout at 2^31-1 ms; longer timers are re-armed when that cap fires. */
const MAX_REAL_DELAY_MS = 2_147_483_647;

export interface ClockTimer {
  cancel(): void;
}

interface Pending {
  at: number;
  fn: () => void;
  handle: NodeJS.Timeout | undefined;
  done: boolean;
}

export class EmulatorClock {
  #offsetMs = 0;
  readonly #pending = new Set<Pending>();

  constructor(private readonly realNow: () => number = Date.now) {}

  /** Emulator time, ms since the epoch. */
  now(): number {
    return this.realNow() + this.#offsetMs;
  }

  nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Moves the clock forward and fires every timer that is now due, in time order. */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advanceMs must be a number >= 0');
    this.#offsetMs += ms;
    this.#fireDue();
    // The rest are now closer in real time: re-arm them against the new offset.
    for (const timer of this.#pending) this.#arm(timer);
    return this.now();
  }

  /** Back to real time; pending timers are re-armed against it (reset of the emulator). */
  resetOffset(): void {
    this.#offsetMs = 0;
    for (const timer of this.#pending) this.#arm(timer);
  }

  /** Runs `fn` once emulator time reaches `at` (ms since the epoch). */
  at(at: number, fn: () => void): ClockTimer {
    const timer: Pending = { at, fn, handle: undefined, done: false };
    this.#pending.add(timer);
    if (at <= this.now()) queueMicrotask(() => this.#fire(timer));
    else this.#arm(timer);
    return { cancel: () => this.#cancel(timer) };
  }

  /** Cancels every timer (emulator shutdown). */
  cancelAll(): void {
    for (const timer of [...this.#pending]) this.#cancel(timer);
  }

  #arm(timer: Pending): void {
    if (timer.handle) clearTimeout(timer.handle);
    const delay = Math.min(Math.max(0, timer.at - this.now()), MAX_REAL_DELAY_MS);
    timer.handle = setTimeout(() => {
      if (timer.at <= this.now()) this.#fire(timer);
      else this.#arm(timer);
    }, delay);
    // Timers must never keep a process alive on their own: the server's socket does that.
    timer.handle.unref();
  }

  #fireDue(): void {
    const now = this.now();
    const due = [...this.#pending].filter((t) => t.at <= now).sort((a, b) => a.at - b.at);
    for (const timer of due) this.#fire(timer);
  }

  #fire(timer: Pending): void {
    if (timer.done) return;
    this.#cancel(timer);
    timer.fn();
  }

  #cancel(timer: Pending): void {
    timer.done = true;
    if (timer.handle) clearTimeout(timer.handle);
    this.#pending.delete(timer);
  }
}
