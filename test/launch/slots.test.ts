/**
 * The slot queue (slots.ts). Its parts on their own (AccountSlots, takeSlot, waitForTurn,
 * waitForSlot), without a service: what wakes a queued launch, what bounds its wait, and when it
 * gives up at once; waits are a few ms at most, the assertions are about order and outcome, never
 * elapsed time. Then the queue through launches (issue 14, P3): a 429 on create teaches this
 * process the account's limit; launches past it wait for one of this process's own sessions to
 * end, in order, and then create at once: not after the service's Retry-After (600 s here, longer
 * than any test may run, so a launch that is not woken cannot pass) and without asking the
 * service meanwhile.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import type { CallScope } from '../../src/http/call-options.js';
import { setDebugSink } from '../../src/http/debug.js';
import { AbortError, RateLimitError } from '../../src/http/errors.js';
import { LaunchError } from '../../src/launch/errors.js';
import { type OpenedSession, openSession } from '../../src/launch/open-session.js';
import {
  AccountSlots,
  takeSlot,
  untilDeadline,
  waitForSlot,
  waitForTurn,
} from '../../src/launch/slots.js';
import { slotsOf } from '../../src/launch/tracker.js';
import { setEnv } from '../helpers/env.js';
import { json } from '../helpers/http-server.js';
import { TOKEN, useFakeService } from './fake-service.js';

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

describe('slotsOf', () => {
  it('keeps one slot view per account, process-wide', () => {
    const a = slotsOf('acct-slots-test-a');
    expect(slotsOf('acct-slots-test-a')).toBe(a);
    expect(slotsOf('acct-slots-test-b')).not.toBe(a);
    const slot = a.take();
    expect(slotsOf('acct-slots-test-a').held).toBe(1);
    slot.release();
  });
});

const LIMIT = 2;
const CREATES = /^\/sessions$/;
const service = useFakeService('rb-slots-');

const launch = () =>
  openSession(
    { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
    'launchRemote',
  );
const launchOn = (api: BrowserApi, timeout?: number) =>
  openSession({ api, preflight: false, ...(timeout ? { timeout } : {}) }, 'launchRemote');
const creates = () => service.calls('POST', CREATES).length;

describe('the local slot queue', () => {
  beforeEach(() => {
    // The account's concurrency limit, as the service enforces it.
    service.on('POST', CREATES, (req, res) => {
      const running = service.running().length;
      if (running >= LIMIT) {
        return json(
          429,
          {
            error: { code: 'rate_limited', message: 'concurrent session limit reached' },
            limit_type: 'sessions',
            current_usage: running,
            limit: LIMIT,
            retry_after: 600,
          },
          { 'retry-after': '600' },
        )(req, res);
      }
      const session = service.createSession(req.body);
      return json(200, {
        data: { id: session.id, status: 'running', cdp_url: `ws://127.0.0.1:1/x/${session.id}` },
      })(req, res);
    });
  });

  it('a launch refused with 429 creates as soon as a session of this process ends', async () => {
    const a = await launch();
    const b = await launch();
    const order: string[] = [];
    const c = launch().then((opened) => {
      order.push('c created');
      return opened;
    });
    // c has been refused once (its 429 is in) before a ends.
    await until(() => creates() === 3);
    order.push('a ending');
    await a.finish();
    const opened = await c;
    expect(order).toEqual(['a ending', 'c created']);
    // One refusal and one retry: no polling in between.
    expect(creates()).toBe(4);
    await Promise.all([b.finish(), opened.finish()]);
  });

  it('past the learned limit, launches queue here in order and ask the service only when woken', async () => {
    const a = await launch();
    const b = await launch();
    const refused = launch(); // teaches the limit: 2
    await until(() => creates() === 3);
    await a.finish();
    const c = await refused;
    expect(creates()).toBe(4);

    const order: string[] = [];
    const track = (name: string) => (opened: OpenedSession) => {
      order.push(name);
      return opened;
    };
    const d = launch().then(track('d'));
    const e = launch().then(track('e'));
    await b.finish();
    const dOpened = await d;
    // d was woken by b's end and created once; e has not asked the service at all.
    expect(creates()).toBe(5);
    expect(order).toEqual(['d']);
    await c.finish();
    const eOpened = await e;
    expect(order).toEqual(['d', 'e']);
    expect(creates()).toBe(6);
    expect(service.calls('POST', CREATES).length).toBe(6);
    await Promise.all([dOpened.finish(), eOpened.finish()]);
  });

  it("launches refused together each create once a session of ours ends, not on each other's 429", async () => {
    // Four at once on a limit of 2 the client does not know yet: two are created, two refused.
    const opened: OpenedSession[] = [];
    const launches = Array.from({ length: 4 }, () =>
      launch().then((o) => {
        opened.push(o);
        return o;
      }),
    );
    await until(() => opened.length === 2 && creates() === 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // A refused launch giving up its slot frees nothing: the other refused one did not ask again.
    expect(creates()).toBe(4);
    const [a, b] = opened as [OpenedSession, OpenedSession];
    // Each end lets exactly one waiting launch create, at once (each woken one asks, rather
    // than queueing again behind the other).
    await a.finish();
    await until(() => opened.length === 3);
    expect(creates()).toBe(5);
    await b.finish();
    await until(() => opened.length === 4);
    expect(creates()).toBe(6);
    await Promise.all(launches);
    await Promise.all(opened.slice(2).map((o) => o.finish()));
  });

  it("is the account's, process-wide: another client on the same account queues behind it too", async () => {
    const mine = service.api();
    const a = await launchOn(mine);
    const b = await launchOn(mine);
    const refused = launchOn(mine); // teaches `mine` the limit: 2
    await until(() => creates() === 3);
    await a.finish();
    const c = await refused;
    expect(creates()).toBe(4);
    // `mine` queues without asking; so does a new client on the same account (the same token),
    // behind it: the queue is the account's, not the client's.
    const queued = launchOn(mine);
    const other = launchOn(service.api());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(creates()).toBe(4);
    await b.finish();
    const d = await queued;
    expect(creates()).toBe(5);
    await c.finish();
    const e = await other;
    expect(creates()).toBe(6);
    await Promise.all([d.finish(), e.finish()]);
  });
});

/** Waits (without a time bound of its own: the test's timeout is the bound) until `check()`. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}
