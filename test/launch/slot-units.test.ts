/**
 * The slot queue's parts on their own (AccountSlots, takeSlot, waitForTurn, waitForSlot), without
 * a service: what wakes a queued launch, what bounds its wait, and when it gives up at once.
 * Waits are a few ms at most; the assertions are about order and outcome, never elapsed time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallScope } from '../../src/http/call-options.js';
import { setDebugSink } from '../../src/http/debug.js';
import { AbortError, RateLimitError } from '../../src/http/errors.js';
import { LaunchError } from '../../src/launch/errors.js';
import { AccountSlots, takeSlot, untilDeadline, waitForTurn } from '../../src/launch/slot-queue.js';
import { waitForSlot } from '../../src/launch/slot-wait.js';
import { setEnv } from '../helpers/env.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A scope with a fixed deadline (Infinity: none) whose signal aborts only when the test says. */
function scope(deadline = Number.POSITIVE_INFINITY) {
  const controller = new AbortController();
  const s: CallScope = {
    signal: controller.signal,
    deadline,
    abortError: (what) => new AbortError(`${what}: aborted`),
    pause: () => {},
    resume: () => {},
    dispose: () => {},
  };
  return { scope: s, abort: () => controller.abort() };
}

/** Settles-or-not after a few event-loop turns: 'pending' when `promise` has not settled. */
async function stateOf(promise: Promise<unknown>, ms = 20): Promise<string> {
  const timer = new Promise((r) => setTimeout(() => r('pending'), ms));
  return (await Promise.race([
    promise.then(
      (v) => `resolved ${String(v)}`,
      (e: Error) => `rejected ${e.message}`,
    ),
    timer,
  ])) as string;
}

const limited = (init: { limit?: number; currentUsage?: number; retryAfterMs?: number }) =>
  new RateLimitError({
    status: 429,
    method: 'POST',
    path: '/sessions',
    body: {},
    limitType: 'sessions',
    ...init,
  } as never);

describe('AccountSlots', () => {
  it('counts each slot until it is released, once, and hands the freed slot to the first waiter', () => {
    const slots = new AccountSlots();
    const granted: string[] = [];
    const a = slots.take();
    slots.take();
    expect(slots.held).toBe(2);
    slots.waiters.push({ grant: () => granted.push('first') });
    slots.waiters.push({ grant: () => granted.push('second') });
    a.release();
    a.release();
    expect(slots.held).toBe(1);
    expect(granted).toEqual(['first']);
    expect(slots.waiters).toHaveLength(1);
    const alone = new AccountSlots();
    alone.take().release(); // nobody waiting: nothing to grant
    expect(alone.held).toBe(0);
  });

  it('is full only once a limit is known and the slots held reach it', () => {
    const slots = new AccountSlots();
    slots.take();
    slots.take();
    expect(slots.full).toBe(false);
    slots.learn(3, 3);
    expect(slots.full).toBe(false);
    slots.take();
    expect(slots.full).toBe(true);
    slots.learn(2, 3);
    expect(slots.full).toBe(true);
  });

  it('learns only a whole positive limit', () => {
    const slots = new AccountSlots();
    slots.learn(2, undefined);
    for (const bad of [0, -1, 1.5, undefined]) {
      slots.learn(bad, undefined);
      expect(slots.limit).toBe(2);
    }
  });

  it('knows the sessions counted are all its own only when current_usage is what it holds', () => {
    const slots = new AccountSlots();
    slots.learn(2, 0);
    expect(slots.othersHold).toBe(true); // holds nothing: every session counted is another's
    slots.take();
    slots.take();
    slots.learn(2, 2);
    expect(slots.othersHold).toBe(false);
    slots.learn(2, 1);
    expect(slots.othersHold).toBe(false);
    slots.learn(2, 3);
    expect(slots.othersHold).toBe(true);
    slots.learn(2, undefined);
    expect(slots.othersHold).toBe(true);
  });
});

describe('untilDeadline', () => {
  it("is the time left in the scope, capped to a timer's range", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    expect(untilDeadline(scope(Date.now() + 1234).scope)).toBe(1234);
    expect(untilDeadline(scope().scope)).toBe(2 ** 31 - 1);
  });
});

describe('waitForTurn', () => {
  it('resolves false after fallbackMs and leaves no waiter behind', async () => {
    const slots = new AccountSlots();
    expect(await waitForTurn(slots, 1, scope().scope, 'x')).toBe(false);
    expect(slots.waiters).toHaveLength(0);
  });

  it('resolves true when a slot of this client is released, and leaves no waiter behind', async () => {
    const slots = new AccountSlots();
    const slot = slots.take();
    const waiting = waitForTurn(slots, 2 ** 31 - 1, scope().scope, 'x');
    expect(await stateOf(waiting)).toBe('pending');
    const later = waitForTurn(slots, 2 ** 31 - 1, scope().scope, 'x');
    slot.release();
    expect(await waiting).toBe(true);
    // Only its own entry left the queue: the later waiter still waits.
    expect(slots.waiters).toHaveLength(1);
    slots.take().release();
    expect(await later).toBe(true);
    expect(slots.waiters).toHaveLength(0);
  });

  it('takes an infinite fallback as "no fallback" (not as a timer overflow that fires at once)', async () => {
    const slots = new AccountSlots();
    const slot = slots.take();
    const waiting = waitForTurn(slots, Number.POSITIVE_INFINITY, scope().scope, 'x');
    expect(await stateOf(waiting)).toBe('pending');
    slot.release();
    expect(await waiting).toBe(true);
  });

  it("rejects with the scope's error when the launch is aborted, and leaves no waiter behind", async () => {
    const slots = new AccountSlots();
    const { scope: s, abort } = scope();
    const waiting = waitForTurn(slots, 2 ** 31 - 1, s, 'launchRemote');
    abort();
    await expect(waiting).rejects.toThrow('launchRemote: aborted');
    expect(slots.waiters).toHaveLength(0);
  });
});

describe('takeSlot', () => {
  const options = (s: CallScope, queue = true) => ({
    queue,
    fallbackMs: 2 ** 31 - 1,
    scope: s,
    what: 'x',
  });

  it('takes a slot at once below the learned limit, and past it when not queueing (a pre-warm)', async () => {
    const slots = new AccountSlots();
    slots.learn(1, 1);
    await takeSlot(slots, options(scope().scope));
    expect(slots.held).toBe(1);
    await takeSlot(slots, options(scope().scope, false));
    expect(slots.held).toBe(2);
  });

  it('at the learned limit waits for a slot of this client to be released', async () => {
    const slots = new AccountSlots();
    slots.learn(1, 1);
    const first = await takeSlot(slots, options(scope().scope));
    const second = takeSlot(slots, options(scope().scope));
    expect(await stateOf(second)).toBe('pending');
    first.release();
    await second;
    expect(slots.held).toBe(1);
  });

  it('queues behind a waiter even when a slot looks free, so launches keep their order', async () => {
    const slots = new AccountSlots();
    const order: string[] = [];
    slots.waiters.push({ grant: () => order.push('earlier waiter') });
    const taking = takeSlot(slots, options(scope().scope)).then(() => order.push('new launch'));
    expect(await stateOf(taking)).toBe('pending');
    slots.take().release();
    expect(await stateOf(taking)).toBe('pending');
    slots.take().release();
    await taking;
    expect(order).toEqual(['earlier waiter', 'new launch']);
  });

  it('when others hold sessions, asks again after fallbackMs; when all are its own, only on a release', async () => {
    const others = new AccountSlots();
    others.learn(1, 5);
    others.take();
    await takeSlot(others, { ...options(scope().scope), fallbackMs: 1 });
    expect(others.held).toBe(2);

    const mine = new AccountSlots();
    const held = mine.take();
    mine.learn(1, 1);
    const taking = takeSlot(mine, { ...options(scope().scope), fallbackMs: 1 });
    expect(await stateOf(taking)).toBe('pending');
    held.release();
    await taking;
  });
});

describe('waitForSlot', () => {
  it('gives up at once, naming the limit, when the Retry-After is past the deadline and no session is ours', async () => {
    const slots = new AccountSlots();
    const error = limited({ limit: 2, currentUsage: 2, retryAfterMs: 600_000 });
    const thrown = await waitForSlot(
      error,
      0,
      scope(Date.now() + 60_000).scope,
      'launchRemote',
      slots,
    ).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(LaunchError);
    expect((thrown as Error).message).toBe(
      "launchRemote: the account's concurrent-session limit (2) stayed full until the launch timed out",
    );
    expect((thrown as Error).cause).toBe(error);
    expect(slots.limit).toBe(2);
    expect(slots.waiters).toHaveLength(0);
  });

  it('says "?" for a limit the 429 did not give', async () => {
    const error = limited({ retryAfterMs: 600_000 });
    await expect(
      waitForSlot(error, 0, scope(Date.now() + 60_000).scope, 'x', new AccountSlots()),
    ).rejects.toThrow("x: the account's concurrent-session limit (?) stayed full");
  });

  it('waits the Retry-After when other clients hold sessions', async () => {
    const slots = new AccountSlots();
    await waitForSlot(
      limited({ limit: 2, currentUsage: 2, retryAfterMs: 1 }),
      0,
      scope().scope,
      'x',
      slots,
    );
    expect(slots.othersHold).toBe(true);
  });

  it('with every session its own, waits for one to end, not for the Retry-After', async () => {
    const slots = new AccountSlots();
    const ours = slots.take();
    const error = limited({ limit: 1, currentUsage: 1, retryAfterMs: 1 });
    const waiting = waitForSlot(error, 0, scope(Date.now() + 60_000).scope, 'x', slots);
    expect(await stateOf(waiting)).toBe('pending');
    ours.release();
    await waiting;
  });

  it('waits for a Retry-After that ends exactly at the deadline', async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // a clock that stands still: exactly 5 ms left
    const slots = new AccountSlots();
    const error = limited({ limit: 2, currentUsage: 2, retryAfterMs: 5 });
    await waitForSlot(error, 0, scope(Date.now() + 5).scope, 'x', slots);
    expect(slots.limit).toBe(2);
  });

  it('with a session of its own held, waits until the deadline and then gives up', async () => {
    const slots = new AccountSlots();
    slots.take();
    const error = limited({ limit: 1, currentUsage: 1, retryAfterMs: 600_000 });
    await expect(waitForSlot(error, 0, scope(Date.now() + 5).scope, 'x', slots)).rejects.toThrow(
      /stayed full until the launch timed out/,
    );
  });

  it('logs the usage, how many are ours and the longest wait', async () => {
    const lines: string[] = [];
    const previous = setDebugSink((line) => lines.push(line));
    const restore = setEnv({ DEBUG: 'remote-browser:launch' });
    try {
      const slots = new AccountSlots();
      slots.take();
      await waitForSlot(
        limited({ limit: 3, currentUsage: 3, retryAfterMs: 2.4 }),
        0,
        scope().scope,
        'x',
        slots,
      );
      expect(lines).toEqual([
        "remote-browser:launch session limit reached (3/3, 1 of them this process's); waiting for one of ours to end, at most 2ms",
      ]);
    } finally {
      setDebugSink(previous);
      restore();
    }
  });
});
