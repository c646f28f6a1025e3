import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/http/errors.js';
import { checkPoolOptions, SessionPool } from '../../src/launch/session-pool.js';
import { fakeDriver, rateLimited, tick } from './pool-driver.js';

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

describe('checkPoolOptions', () => {
  it.each([
    [{ size: 0 }, 'size'],
    [{ size: 1.5 }, 'size'],
    [{ size: '2' }, 'size'],
    [{ maxWarmAgeMs: -1 }, 'maxWarmAgeMs'],
    [{ maxWarmAgeMs: Number.NaN }, 'maxWarmAgeMs'],
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

  it('defaults to one warm session, replaced at half the idle timeout', () => {
    expect(checkPoolOptions('x', {})).toEqual({ size: 1, maxWarmAgeMs: 300_000 });
    expect(checkPoolOptions('x', { idleTimeoutMinutes: 2 })).toEqual({
      size: 1,
      maxWarmAgeMs: 60_000,
    });
  });
});
