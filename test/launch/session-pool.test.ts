import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isBudgetExceededError } from '../../src/http/budget-exceeded.js';
import { setDebugSink } from '../../src/http/debug.js';
import { RequestValidationError } from '../../src/http/errors.js';
import { createPool } from '../../src/launch/adapter.js';
import { register } from '../../src/launch/browser-registry.js';
import { LaunchError } from '../../src/launch/errors.js';
import { recorder } from '../../src/launch/metering.js';
import { checkPoolOptions } from '../../src/launch/pool-options.js';
import { SessionPool } from '../../src/launch/session-pool.js';
import { setEnv } from '../helpers/env.js';
import { type FakeBrowser, fakeDriver, rateLimited, tick } from './pool-driver.js';

describe('SessionPool', () => {
  it('warms `size` sessions at once, without waiting for a slot', () => {
    const fake = fakeDriver();
    new SessionPool(fake.driver, { size: 2, maxWarmAgeMs: 60_000 });
    expect(fake.pending.map((p) => p.waitForSlot)).toEqual([false, false]);
  });

  it('hands out a warm session and starts its replacement in the background', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    const warm = fake.finish();
    await tick();
    const taken = await pool.launch();
    expect(taken).toBe(warm);
    expect(fake.pending).toHaveLength(1);
    expect(fake.pending[0]?.waitForSlot).toBe(false);
    expect(pool.stats).toMatchObject({ created: 1, handedOut: 1, warm: 1 });
  });

  it('re-attaches a handed-out browser whose connection dropped instead of launching a new session', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    fake.finish();
    await tick();
    const taken = await pool.launch();
    taken.alive = false;
    taken.kept = true;
    const again = await pool.launch();
    expect(again).not.toBe(taken);
    expect(again.id).toBe(taken.id);
    expect(pool.stats).toMatchObject({ created: 1, handedOut: 2, reattached: 1 });
    // The refill started at the first hand-out is still the only launch asked for.
    expect(fake.pending).toHaveLength(1);
  });

  it('tries a re-attach that was cut before it connected again, on the same session, instead of launching', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    fake.finish();
    await tick();
    const taken = await pool.launch();
    taken.alive = false;
    taken.kept = true;
    taken.reattachCuts = 2;
    const again = await pool.launch();
    expect(again.id).toBe(taken.id);
    expect(taken.reattachCuts).toBe(0);
    expect(pool.stats).toMatchObject({ created: 1, handedOut: 2, reattached: 1 });
    expect(fake.pending).toHaveLength(1);
  });

  it('after three cut re-attaches hands out a warm session instead', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    fake.finish();
    await tick();
    const taken = await pool.launch();
    taken.alive = false;
    taken.kept = true;
    taken.reattachCuts = 5;
    const launching = pool.launch();
    await tick();
    const warm = fake.finish();
    expect(await launching).toBe(warm);
    expect(taken.reattachCuts).toBe(2);
    expect(pool.stats).toMatchObject({ reattached: 0, handedOut: 2 });
  });

  it('re-attaches a warm session that dropped, and discards one whose session ended', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    const warm = fake.finish();
    await tick();
    warm.alive = false;
    warm.kept = true;
    const taken = await pool.launch();
    expect(taken.id).toBe(warm.id);
    expect(pool.stats).toMatchObject({ reattached: 1, discarded: 0 });

    const next = fake.finish();
    await tick();
    next.alive = false;
    next.droppedEnded = true;
    const launching = pool.launch();
    await tick();
    await tick();
    expect(pool.stats.discarded).toBe(1);
    fake.finish(fake.pending.findIndex((p) => p.waitForSlot === false));
    expect((await launching).id).not.toBe(next.id);
  });

  it('waits for a session still warming rather than launching another', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    const taking = pool.launch();
    // One warming (taken) and its replacement: no on-demand launch with waitForSlot true.
    expect(fake.pending.map((p) => p.waitForSlot)).toEqual([false, false]);
    const warm = fake.finish(0);
    expect(await taking).toBe(warm);
  });

  it('on a 429 stops warming for good and launches on demand with a slot wait', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    fake.fail(rateLimited());
    await tick();
    expect(fake.pending).toHaveLength(0);
    expect(pool.stats.warm).toBe(0);

    const taking = pool.launch();
    expect(fake.pending.map((p) => p.waitForSlot)).toEqual([true]);
    const browser = fake.finish();
    expect(await taking).toBe(browser);
    // Still backing off: nothing warms while the account is full.
    expect(fake.pending).toHaveLength(0);

    // Its own session ending frees a slot, but another worker may be queued for it: no refill.
    await fake.driver.close(browser);
    expect(fake.pending).toHaveLength(0);
    const again = pool.launch();
    expect(fake.pending.map((p) => p.waitForSlot)).toEqual([true]);
    fake.finish();
    await again;
    expect(fake.pending).toHaveLength(0);
    await pool.close();
  });

  it('ends and replaces a warm session older than maxWarmAgeMs instead of handing it out', async () => {
    const fake = fakeDriver();
    let now = 0;
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 1000, now: () => now });
    const old = fake.finish();
    await tick();
    now = 5000;
    const taking = pool.launch();
    await tick();
    expect(old.closes).toBe(1);
    const fresh = fake.finish();
    expect(await taking).toBe(fresh);
    expect(pool.stats.discarded).toBe(1);
  });

  it('skips a warm session whose browser disconnected', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    const dead = fake.finish();
    dead.alive = false;
    await tick();
    const taking = pool.launch();
    await tick();
    const fresh = fake.finish();
    expect(await taking).toBe(fresh);
  });

  it('close() ends every warm session exactly once, including one still warming, and is idempotent', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 2, maxWarmAgeMs: 60_000 });
    const ready = fake.finish();
    await tick();
    const closing = Promise.all([pool.close(), pool.close()]);
    const late = fake.finish();
    await closing;
    await tick();
    expect(ready.closes).toBe(1);
    expect(late.closes).toBe(1);
    expect(fake.pending).toHaveLength(0);
    await expect(pool.launch()).rejects.toThrow(/after close/);
  });

  it('never has more than `size` sessions warm or warming', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 3, maxWarmAgeMs: 60_000 });
    for (let i = 0; i < 5; i++) {
      fake.finish();
      await tick();
      await pool.launch();
      expect(pool.stats.warm).toBeLessThanOrEqual(3);
      expect(fake.pending.length).toBeLessThanOrEqual(3);
    }
    const closing = pool.close();
    while (fake.pending.length) fake.finish();
    await closing;
    expect(fake.launched.filter((b) => b.closes === 0)).toHaveLength(5);
  });
});

describe('SessionPool: a warm session the service may have ended', () => {
  it('asks the service about a warm session idle for checkWarmAfterMs, discards it when its session has ended, and hands out the next', async () => {
    const fake = fakeDriver();
    let now = 0;
    const pool = new SessionPool(fake.driver, {
      size: 2,
      maxWarmAgeMs: 600_000,
      checkWarmAfterMs: 30_000,
      now: () => now,
    });
    const ended = fake.finish();
    const next = fake.finish();
    await tick();
    ended.ended = true;
    now = 30_000;
    expect(await pool.launch()).toBe(next);
    expect(fake.checks.map((c) => [c.browser.id, c.timeoutMs])).toEqual([
      [ended.id, 5000],
      [next.id, 5000],
    ]);
    expect(ended.closes).toBe(1);
    expect(pool.stats).toMatchObject({ handedOut: 1, discarded: 1 });
    // Two refills, no on-demand launch.
    expect(fake.pending.map((p) => p.waitForSlot)).toEqual([false, false]);
    await closeAll(pool, fake);
  });

  it('when every warm session has ended, takes the refill started in its place', async () => {
    const fake = fakeDriver();
    let now = 0;
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 600_000, now: () => now });
    const ended = fake.finish();
    await tick();
    ended.ended = true;
    now = 60_000;
    const taking = pool.launch();
    await tick();
    expect(ended.closes).toBe(1);
    const refill = fake.finish();
    expect(await taking).toBe(refill);
    // The refill was idle for no time: handed out without a check.
    expect(fake.checks.map((c) => c.browser)).toEqual([ended]);
    await closeAll(pool, fake);
  });

  it('hands out a warm session idle for less than checkWarmAfterMs without asking the service, idle counted from when its launch finished', async () => {
    const fake = fakeDriver();
    let now = 0;
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 600_000, now: () => now });
    // Warming began at 0 and finished at 20 s: at 49.999 s it has been idle for 29.999 s.
    now = 20_000;
    const warm = fake.finish();
    await tick();
    now = 49_999;
    expect(await pool.launch()).toBe(warm);
    expect(fake.checks).toEqual([]);
    await closeAll(pool, fake);
  });

  it('with checkWarmAfterMs 0 asks about every warm session, and hands out one that still runs', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, {
      size: 1,
      maxWarmAgeMs: 600_000,
      checkWarmAfterMs: 0,
    });
    const warm = fake.finish();
    await tick();
    expect(await pool.launch()).toBe(warm);
    expect(fake.checks.map((c) => c.browser)).toEqual([warm]);
    expect(warm.closes).toBe(0);
    await closeAll(pool, fake);
  });

  it('when the service does not answer the check, hands out a warm browser that is still connected', async () => {
    const fake = fakeDriver();
    let now = 0;
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 600_000, now: () => now });
    const warm = fake.finish();
    await tick();
    warm.checkFails = new Error('connect ECONNREFUSED 127.0.0.1:443');
    now = 40_000;
    expect(await pool.launch()).toBe(warm);
    expect(fake.checks).toHaveLength(1);
    expect(pool.stats).toMatchObject({ handedOut: 1, discarded: 0 });
    await closeAll(pool, fake);
  });

  it('when the service does not answer and the browser disconnected meanwhile, discards it and takes the next', async () => {
    const fake = fakeDriver();
    let now = 0;
    const driver = {
      ...fake.driver,
      // The service and the browser's connection go away together.
      stillRunning: async (b: FakeBrowser) => {
        b.alive = false;
        throw new Error('socket hang up');
      },
    };
    const pool = new SessionPool<FakeBrowser>(driver, {
      size: 1,
      maxWarmAgeMs: 600_000,
      now: () => now,
    });
    const warm = fake.finish();
    await tick();
    now = 40_000;
    const taking = pool.launch();
    await tick();
    expect(warm.closes).toBe(1);
    const refill = fake.finish();
    expect(await taking).toBe(refill);
    expect(pool.stats).toMatchObject({ handedOut: 1, discarded: 1 });
    await closeAll(pool, fake);
  });

  it.each([
    ['idle for 30 s', 30_000],
    ['fresh', 0],
  ])(
    'never re-attaches a warm session (%s) whose connection dropped once the service says it has ended',
    async (_, idleMs) => {
      const fake = fakeDriver();
      let now = 0;
      const pool = new SessionPool(fake.driver, { size: 2, maxWarmAgeMs: 600_000, now: () => now });
      const dropped = fake.finish();
      const next = fake.finish();
      await tick();
      // Kept after its drop, then ended by the service (an idle timeout during the window).
      dropped.alive = false;
      dropped.kept = true;
      dropped.ended = true;
      now = idleMs;
      expect(await pool.launch()).toBe(next);
      expect(fake.checks.map((c) => c.browser)[0]).toBe(dropped);
      expect(dropped.closes).toBe(1);
      expect(pool.stats).toMatchObject({ reattached: 0, discarded: 1, handedOut: 1 });
      expect(fake.launched.filter((b) => b.id === dropped.id)).toEqual([dropped]);
      await closeAll(pool, fake);
    },
  );

  it('re-attaches a warm session whose connection dropped when the service says it still runs', async () => {
    const fake = fakeDriver();
    let now = 0;
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 600_000, now: () => now });
    const dropped = fake.finish();
    await tick();
    dropped.alive = false;
    dropped.kept = true;
    now = 30_000;
    const taken = await pool.launch();
    expect(taken).not.toBe(dropped);
    expect(taken.id).toBe(dropped.id);
    expect(fake.checks.map((c) => c.browser)).toEqual([dropped]);
    expect(pool.stats).toMatchObject({ reattached: 1, discarded: 0 });
    await closeAll(pool, fake);
  });

  it('close() while a warm session is being checked ends it instead of handing it out', async () => {
    const fake = fakeDriver();
    let answer: (running: boolean) => void = () => {};
    const driver = {
      ...fake.driver,
      stillRunning: () => new Promise<boolean>((resolve) => (answer = resolve)),
    };
    const pool = new SessionPool<FakeBrowser>(driver, {
      size: 1,
      maxWarmAgeMs: 600_000,
      checkWarmAfterMs: 0,
    });
    const warm = fake.finish();
    await tick();
    const taking = pool.launch();
    taking.catch(() => {});
    await tick();
    const closing = pool.close();
    answer(true);
    await expect(taking).rejects.toThrow(/closed while launch\(\) was waiting/);
    expect(warm.closes).toBe(1);
    fake.finish();
    await closing;
    expect(pool.stats.handedOut).toBe(0);
  });
});

describe('checkPoolOptions', () => {
  it.each([
    [{ size: 0 }, 'size'],
    [{ size: 1.5 }, 'size'],
    [{ size: '2' }, 'size'],
    [{ maxWarmAgeMs: -1 }, 'maxWarmAgeMs'],
    [{ maxWarmAgeMs: Number.NaN }, 'maxWarmAgeMs'],
    [{ checkWarmAfterMs: -1 }, 'checkWarmAfterMs'],
    [{ checkWarmAfterMs: Number.POSITIVE_INFINITY }, 'checkWarmAfterMs'],
    [{ checkWarmAfterMs: '30s' }, 'checkWarmAfterMs'],
  ])('rejects %o naming %s', (options, field) => {
    let error: unknown;
    try {
      checkPoolOptions('createSessionPool', options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).field).toBe(field);
  });

  it('defaults to one warm session, replaced at half the idle timeout, checked after 30 s idle', () => {
    expect(checkPoolOptions('x', {})).toEqual({
      size: 1,
      maxWarmAgeMs: 300_000,
      checkWarmAfterMs: 30_000,
    });
    expect(checkPoolOptions('x', { idleTimeoutMinutes: 2 })).toEqual({
      size: 1,
      maxWarmAgeMs: 60_000,
      checkWarmAfterMs: 30_000,
    });
  });
});

// Fake timers for the refill backoff only: setImmediate (tick) stays real.
const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
afterEach(() => {
  vi.useRealTimers();
});

/** Closes the pool, finishing the warm launches still pending so that close() can end them. */
async function closeAll(pool: SessionPool<FakeBrowser>, fake: ReturnType<typeof fakeDriver>) {
  const closing = pool.close();
  while (fake.pending.length) fake.finish();
  await closing;
}

describe('SessionPool refill backoff', () => {
  it('after failed warm launches waits 2, 4, 8, 16, then at most 30 s, and starts over after a success', async () => {
    fakeClock();
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 600_000 });
    for (const wait of [2000, 4000, 8000, 16_000, 30_000, 30_000]) {
      fake.fail(new Error('boom'));
      await tick();
      await vi.advanceTimersByTimeAsync(wait - 1);
      expect(fake.pending).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(fake.pending).toHaveLength(1);
    }
    fake.finish();
    await tick();
    await pool.launch();
    fake.fail(new Error('boom'));
    await tick();
    await vi.advanceTimersByTimeAsync(1999);
    expect(fake.pending).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.pending.map((p) => p.waitForSlot)).toEqual([false]);
    await closeAll(pool, fake);
  });

  it('launches on demand while backing off, and warms again only when the backoff ends', async () => {
    fakeClock();
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 600_000 });
    fake.fail(new Error('boom'));
    await tick();
    const taking = pool.launch();
    const browser = fake.finish();
    expect(await taking).toBe(browser);
    expect(pool.stats).toMatchObject({ created: 1, handedOut: 1, warm: 0 });
    expect(fake.pending).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(2000);
    expect(fake.pending.map((p) => p.waitForSlot)).toEqual([false]);
    expect(pool.stats.warm).toBe(1);
  });

  it('a backoff ends on its timer even when the pool clock stands still', async () => {
    fakeClock();
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 600_000, now: () => 0 });
    fake.fail(new Error('boom'));
    await tick();
    await vi.advanceTimersByTimeAsync(2000);
    expect(fake.pending).toHaveLength(1);
    await closeAll(pool, fake);
  });

  it.each([
    ['a 429', rateLimited],
    ['a launch error caused by a 429', () => new Error('launch failed', { cause: rateLimited() })],
  ])('after %s never warms again, however long it waits', async (_, error) => {
    fakeClock();
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 2, maxWarmAgeMs: 600_000 });
    fake.fail(error());
    await tick();
    await vi.advanceTimersByTimeAsync(120_000);
    // Only the second warm launch, started before the 429, is still pending.
    expect(fake.pending).toHaveLength(1);
    fake.finish();
    await tick();
    await pool.launch();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(fake.pending).toHaveLength(0);
  });
});

describe('SessionPool.launch() edges', () => {
  it('when the warm session it waits for fails, takes the replacement instead of launching anew', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    const taking = pool.launch();
    // The taken warm launch and its replacement.
    expect(fake.pending).toHaveLength(2);
    fake.fail(new Error('boom'), 0);
    await tick();
    expect(fake.pending.map((p) => p.waitForSlot)).toEqual([false]);
    const replacement = fake.finish();
    expect(await taking).toBe(replacement);
    expect(pool.stats).toMatchObject({ created: 1, handedOut: 1, discarded: 0 });
    await closeAll(pool, fake);
  });

  it('hands out a warm session exactly maxWarmAgeMs old, and measures age from its own launch', async () => {
    const fake = fakeDriver();
    let now = 10_000;
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 1000, now: () => now });
    const warm = fake.finish();
    await tick();
    now = 11_000;
    expect(await pool.launch()).toBe(warm);
    expect(warm.closes).toBe(0);
    await closeAll(pool, fake);
  });

  it('close() while launch() waits for a warming session: both sessions end, launch() rejects and launches nothing', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    const taking = pool.launch();
    taking.catch(() => {});
    const closing = pool.close();
    const taken = fake.finish(0);
    const replacement = fake.finish(0);
    await closing;
    await tick();
    expect(fake.pending).toHaveLength(0);
    const err = await taking.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect((err as LaunchError).message).toMatch(
      /^SessionPool: closed while launch\(\) was waiting/,
    );
    expect([taken.closes, replacement.closes]).toEqual([1, 1]);
    expect(pool.stats).toEqual({ created: 2, handedOut: 0, discarded: 2, reattached: 0, warm: 0 });
  });

  it('close() right after launch() took a ready warm session ends it instead of handing it out', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    const warm = fake.finish();
    await tick();
    const taking = pool.launch();
    taking.catch(() => {});
    const closing = pool.close();
    await expect(taking).rejects.toThrow(/closed while launch\(\) was waiting/);
    expect(warm.closes).toBe(1);
    fake.finish();
    await closing;
    expect(pool.stats).toMatchObject({ handedOut: 0, discarded: 2 });
  });

  it('counts an on-demand launch as created', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    fake.fail(rateLimited());
    await tick();
    const taking = pool.launch();
    fake.finish();
    await taking;
    expect(pool.stats).toEqual({ created: 1, handedOut: 1, discarded: 0, reattached: 0, warm: 0 });
  });

  it('Symbol.asyncDispose closes the pool', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    const warm = fake.finish();
    await tick();
    await pool[Symbol.asyncDispose]();
    expect(warm.closes).toBe(1);
    await expect(pool.launch()).rejects.toThrow(/after close/);
    await expect(pool.launch()).rejects.toBeInstanceOf(LaunchError);
  });
});

describe('SessionPool debug lines', () => {
  let lines: string[];
  let restore: () => void;
  beforeEach(() => {
    lines = [];
    const previous = setDebugSink((line) => lines.push(line));
    const restoreEnv = setEnv({ DEBUG: 'remote-browser:pool' });
    restore = () => {
      setDebugSink(previous);
      restoreEnv();
    };
  });
  afterEach(() => restore());

  it('say why a warm session ended or why warming stopped', async () => {
    const fake = fakeDriver();
    let now = 0;
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 1000, now: () => now });
    fake.finish();
    await tick();
    now = 5000;
    const taking = pool.launch();
    await tick();
    fake.fail(new Error('boom'));
    await tick();
    fake.fail(rateLimited());
    await tick();
    fake.finish();
    await taking;
    expect(lines).toEqual([
      'remote-browser:pool ending a warm session: too old or no longer connected',
      'remote-browser:pool warming failed: boom',
      'remote-browser:pool warming stopped: the account is at its session limit',
    ]);
  });

  it('say when a pool closed with sessions warm or warming, and when ending one failed', async () => {
    const fake = fakeDriver();
    const failing = {
      ...fake.driver,
      close: async () => Promise.reject(new Error('gone already')),
    };
    const pool = new SessionPool<FakeBrowser>(failing, { size: 2, maxWarmAgeMs: 60_000 });
    fake.finish();
    await tick();
    const closing = pool.close();
    fake.finish();
    await closing;
    expect(lines.sort()).toEqual([
      'remote-browser:pool ending a warm session failed: gone already',
      'remote-browser:pool ending a warm session failed: gone already',
      'remote-browser:pool ending a warm session: pool closed',
      'remote-browser:pool ending a warm session: pool closed while it was warming',
    ]);
  });

  it('say when a warm session was discarded because its session ended, and when a check got no answer', async () => {
    const fake = fakeDriver();
    let now = 0;
    const pool = new SessionPool(fake.driver, { size: 2, maxWarmAgeMs: 600_000, now: () => now });
    const ended = fake.finish();
    const unanswered = fake.finish();
    await tick();
    ended.ended = true;
    unanswered.checkFails = new Error('timed out after 5000 ms');
    now = 30_000;
    expect(await pool.launch()).toBe(unanswered);
    expect(lines).toEqual([
      'remote-browser:pool ending a warm session: its session has ended',
      'remote-browser:pool checking a warm session failed: timed out after 5000 ms; its connection decides',
    ]);
    await closeAll(pool, fake);
  });

  it('say when a session taken from the pool was ended because the pool closed', async () => {
    const fake = fakeDriver();
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    fake.finish();
    await tick();
    const taking = pool.launch();
    taking.catch(() => {});
    const closing = pool.close();
    await expect(taking).rejects.toThrow(/closed while/);
    expect(lines).toEqual(['remote-browser:pool ending a warm session: pool closed']);
    fake.finish();
    await closing;
  });
});

describe('checkPoolOptions edges', () => {
  it('keeps a valid maxWarmAgeMs and rejects 0 and Infinity', () => {
    expect(checkPoolOptions('x', { size: 2, maxWarmAgeMs: 5, checkWarmAfterMs: 0 })).toEqual({
      size: 2,
      maxWarmAgeMs: 5,
      checkWarmAfterMs: 0,
    });
    for (const bad of [0, Number.POSITIVE_INFINITY]) {
      expect(() => checkPoolOptions('x', { maxWarmAgeMs: bad })).toThrow(RequestValidationError);
    }
  });

  it('names the call, each field and the rule in its message', () => {
    expect(() => checkPoolOptions('createSessionPool', { size: 0, maxWarmAgeMs: -1 })).toThrow(
      'createSessionPool: invalid request: size: must be a whole number >= 1, got 0; ' +
        'maxWarmAgeMs: must be a finite number of ms > 0, got -1',
    );
  });

  it('falls back to the 10-minute idle timeout for an idle timeout that is 0 or not a number', () => {
    for (const idleTimeoutMinutes of [0, -2, '2']) {
      expect(checkPoolOptions('x', { idleTimeoutMinutes } as never).maxWarmAgeMs).toBe(300_000);
    }
  });
});

describe('createPool', () => {
  const browsers = {
    close: async (b: FakeBrowser) => void b.closes++,
    isAlive: () => true,
    reattach: async () => undefined,
    dropped: () => false,
    stillRunning: async () => true,
  };

  it('checks the pool options before launching anything, naming createSessionPool', () => {
    const launch = vi.fn();
    expect(() => createPool({ size: 0 }, launch, browsers)).toThrow(
      /^createSessionPool: invalid request: size:/,
    );
    expect(launch).not.toHaveBeenCalled();
  });

  it('warms `size` sessions with the launch options minus its own, without a slot wait', async () => {
    const calls: unknown[] = [];
    let id = 0;
    const pool = createPool(
      { size: 2, maxWarmAgeMs: 1000, idleTimeoutMinutes: 4, headless: true },
      async (options) => {
        calls.push(options);
        return { id: id++, alive: true, closes: 0, gone: [] } as FakeBrowser;
      },
      browsers,
    );
    expect(calls).toEqual([
      { idleTimeoutMinutes: 4, headless: true, waitForSlot: false },
      { idleTimeoutMinutes: 4, headless: true, waitForSlot: false },
    ]);
    const taken = await pool.launch();
    expect(taken.id).toBe(0);
    await pool.close();
    expect(pool.stats).toMatchObject({ created: 3, handedOut: 1, discarded: 2 });
  });

  it('passes checkWarmAfterMs to the pool, not to the launch, and asks the adapter about warm sessions', async () => {
    const calls: unknown[] = [];
    const checked: number[] = [];
    let id = 0;
    const pool = createPool(
      { checkWarmAfterMs: 0, idleTimeoutMinutes: 4, headless: true },
      async (options) => {
        calls.push(options);
        return { id: id++, alive: true, closes: 0, gone: [] } as FakeBrowser;
      },
      {
        ...browsers,
        stillRunning: async (b: FakeBrowser, timeoutMs: number) => {
          checked.push(b.id, timeoutMs);
          return true;
        },
      },
    );
    expect(calls).toEqual([{ idleTimeoutMinutes: 4, headless: true, waitForSlot: false }]);
    expect((await pool.launch()).id).toBe(0);
    expect(checked).toEqual([0, 5000]);
    await pool.close();
  });

  it('ends warm sessions older than half the idle timeout it was given', async () => {
    fakeClock();
    let id = 0;
    const pool = createPool(
      { idleTimeoutMinutes: 2 },
      async () => ({ id: id++, alive: true, closes: 0, gone: [] }) as FakeBrowser,
      browsers,
    );
    await vi.advanceTimersByTimeAsync(60_001);
    const taken = await pool.launch();
    expect(taken.id).toBe(1);
    await pool.close();
  });
});

describe('SessionPool usage and budget', () => {
  /** Gives each fake browser a session id, as a launch registers a real one. */
  const withIds = (fake: ReturnType<typeof fakeDriver>, prefix: string) => {
    const finish = fake.finish;
    return (index = 0) => {
      const id = `${prefix}-${fake.launched.length}`;
      recorder.created(id);
      const browser = finish(index);
      register(browser, { info: { id } } as never);
      return { browser, id };
    };
  };
  const prewarmOf = (id: string) => recorder.usage().sessions.find((s) => s.id === id)?.prewarm;

  it('marks a pre-warm taken by a caller as used, and one ended at close() as unused', async () => {
    const fake = fakeDriver();
    const finish = withIds(fake, 'warm-a');
    const pool = new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000 });
    const first = finish();
    await tick();
    expect(prewarmOf(first.id)).toBe('unused');
    expect(await pool.launch()).toBe(first.browser);
    expect(prewarmOf(first.id)).toBe('used');
    const second = finish();
    await tick();
    await pool.close();
    expect(second.browser.closes).toBe(1);
    expect(prewarmOf(second.id)).toBe('unused');
  });

  it("refuses a launch past the pool's budget before the driver launches, and stops warming", async () => {
    const fake = fakeDriver();
    const finish = withIds(fake, 'budget-a');
    const pool = new SessionPool(fake.driver, {
      size: 1,
      maxWarmAgeMs: 60_000,
      budget: { sessions: 2 },
    });
    finish();
    await tick();
    await pool.launch();
    finish();
    await tick();
    await pool.launch();
    await tick();
    expect(fake.pending).toHaveLength(0);
    const error = await pool.launch().catch((e: unknown) => e);
    expect(isBudgetExceededError(error)).toBe(true);
    expect((error as Error).message).toMatch(/^SessionPool: over the pool budget of 2 sessions/);
    expect(fake.pending).toHaveLength(0);
    expect(fake.launched).toHaveLength(2);
    await pool.close();
  });

  it('checks its budget before anything is launched', () => {
    const fake = fakeDriver();
    expect(
      () =>
        new SessionPool(fake.driver, { size: 1, maxWarmAgeMs: 60_000, budget: { sessions: -1 } }),
    ).toThrow('SessionPool: budget.sessions must be a whole number >= 0, got -1');
    expect(fake.pending).toHaveLength(0);
  });
});
