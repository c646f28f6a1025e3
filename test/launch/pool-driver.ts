import { RateLimitError } from '../../src/http/errors.js';
import type { PoolDriver } from '../../src/launch/session-pool.js';

/** One turn of the event loop (real even under fake timers: setImmediate is left alone). */
export const tick = () => new Promise((r) => setImmediate(r));

/** The 429 a create gets at the account's session limit. */
export const rateLimited = () =>
  new RateLimitError({
    status: 429,
    method: 'POST',
    path: '/sessions',
    body: { error: 'limit', limit_type: 'sessions', limit: 1, current_usage: 1 },
    retryAfterMs: 60_000,
  } as never);

export interface FakeBrowser {
  id: number;
  alive: boolean;
  /** Dropped with its session kept for a re-attach. */
  kept?: boolean;
  /** Dropped, and the service said its session had ended (not re-attachable). */
  droppedEnded?: boolean;
  /** The service has ended its session (what a check of it answers). */
  ended?: boolean;
  /** A check of its session fails with this (the service did not answer). */
  checkFails?: Error;
  /** So many re-attaches are cut before they connect (they throw; the session stays kept). */
  reattachCuts?: number;
  closes: number;
  gone: (() => void)[];
}

/** A pool driver whose launches finish only when the test says so, with a record of every call. */
export function fakeDriver() {
  const pending: {
    waitForSlot: boolean;
    resolve: (b: FakeBrowser) => void;
    reject: (e: unknown) => void;
  }[] = [];
  const launched: FakeBrowser[] = [];
  /** Every check of a session with the service, in order, with the timeout it was given. */
  const checks: { browser: FakeBrowser; timeoutMs: number }[] = [];
  let next = 0;
  const driver: PoolDriver<FakeBrowser> = {
    launch: (waitForSlot) =>
      new Promise<FakeBrowser>((resolve, reject) => pending.push({ waitForSlot, resolve, reject })),
    close: async (b) => {
      b.closes++;
      b.alive = false;
      for (const l of b.gone.splice(0)) l();
    },
    isAlive: (b) => b.alive,
    dropped: (b) => b.kept === true || b.droppedEnded === true,
    stillRunning: async (b, timeoutMs) => {
      checks.push({ browser: b, timeoutMs });
      if (b.checkFails) throw b.checkFails;
      return !b.ended && !b.droppedEnded;
    },
    // A browser marked `kept` dropped with its session kept: re-attaching gives a new one on it.
    reattach: async (b) => {
      if (!b.kept) return undefined;
      if (b.reattachCuts) {
        b.reattachCuts--;
        throw new Error('the re-attach was cut before it connected; the session is kept');
      }
      b.kept = false;
      const again: FakeBrowser = { id: b.id, alive: true, closes: 0, gone: [] };
      launched.push(again);
      return again;
    },
  };
  const finish = (index = 0) => {
    const call = pending.splice(index, 1)[0];
    if (!call) throw new Error('no launch pending');
    const browser: FakeBrowser = { id: next++, alive: true, closes: 0, gone: [] };
    launched.push(browser);
    call.resolve(browser);
    return browser;
  };
  const fail = (error: unknown, index = 0) => {
    const call = pending.splice(index, 1)[0];
    if (!call) throw new Error('no launch pending');
    call.reject(error);
  };
  return { driver, pending, launched, checks, finish, fail };
}
