/**
 * The exit hooks (src/launch/exit-hooks.ts) in-process: which listeners they install, what each
 * does, and how they keep the host's behaviour, with `process.kill`, `process.exit` and stderr
 * stubbed so the test process survives. Real signals from outside, and a real exit, are in
 * exit-paths.e2e.test.ts and the exit matrix.
 */
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import type { SessionCreated } from '../../src/browser-api/index.js';
import { COOPERATIVE, installExitHooks } from '../../src/launch/exit-hooks.js';
import { RemoteSession as SessionLease } from '../../src/launch/remote-session.js';
import { tracker } from '../../src/launch/tracker.js';
import { deferred } from '../helpers/deferred.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { heldUntil, useFakeService } from './fake-service.js';

const service = useFakeService('rb-exit-hooks-');
const ONE = /^\/sessions\/[^/]+$/;
// A signal nothing else in the test process listens to, so "no host handler" holds.
const SIGNAL = 'SIGUSR2' as const;

const counts = () => ({
  SIGINT: process.listenerCount('SIGINT'),
  SIGTERM: process.listenerCount('SIGTERM'),
  [SIGNAL]: process.listenerCount(SIGNAL),
  beforeExit: process.listenerCount('beforeExit'),
  uncaughtException: process.listenerCount('uncaughtException'),
});

let kill: MockInstance<typeof process.kill>;
let exit: MockInstance<typeof process.exit>;
let stderr: MockInstance<typeof process.stderr.write>;
/** What Node does with an error nothing caught (typed loosely: `emit`'s overloads omit it). */
const emitUncaught = (error: Error) =>
  (process.emit as (event: string, ...args: unknown[]) => boolean)(
    'uncaughtException',
    error,
    'uncaughtException',
  );
const removers: (() => void)[] = [];
const install = (options: Parameters<typeof installExitHooks>[0] = {}) => {
  const remove = installExitHooks(options);
  removers.push(remove);
  return remove;
};

beforeEach(() => {
  expect(process.listenerCount(SIGNAL)).toBe(0);
  kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
  exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterEach(() => {
  for (const remove of removers.splice(0)) remove();
  vi.restoreAllMocks();
});

const created = (id: string) => ({ id, status: 'running', cdp_url: 'ws://x/y' }) as SessionCreated;

/** A session this process holds, on the fake service. */
const held = () => new SessionLease(service.api(), service.createSession('').id);

describe('installExitHooks: the listeners', () => {
  it('hooks SIGINT, SIGTERM, beforeExit and uncaughtException by default; the remover takes them off', () => {
    const before = counts();
    const remove = install();
    expect(counts()).toEqual({
      ...before,
      SIGINT: before.SIGINT + 1,
      SIGTERM: before.SIGTERM + 1,
      beforeExit: before.beforeExit + 1,
      uncaughtException: before.uncaughtException + 1,
    });
    remove();
    expect(counts()).toEqual(before);
  });

  it('installs once per process: a second call returns the same remover; after it, a call installs again', () => {
    const before = counts();
    const first = install({ signals: [SIGNAL] });
    const second = install({ signals: ['SIGINT'] });
    expect(second).toBe(first);
    expect(counts()).toMatchObject({ [SIGNAL]: 1, SIGINT: before.SIGINT });
    first();
    const third = install({ signals: ['SIGINT'] });
    expect(third).not.toBe(first);
    expect(counts()).toMatchObject({ [SIGNAL]: 0, SIGINT: before.SIGINT + 1 });
  });

  it('takes only the listed signals, and leaves out beforeExit and uncaught when asked', () => {
    const before = counts();
    install({ signals: [SIGNAL], beforeExit: false, uncaught: false });
    expect(counts()).toEqual({ ...before, [SIGNAL]: 1 });
  });

  it('marks its handlers cooperative, so another copy of the library does not count them as the host', () => {
    install({ signals: [SIGNAL] });
    const [handler] = process.listeners(SIGNAL);
    expect((handler as unknown as Record<symbol, unknown>)[COOPERATIVE]).toBe(true);
  });
});

describe('on a signal', () => {
  it('with no host handler: ends the sessions, then re-raises the signal with the hooks removed', async () => {
    const lease = held();
    let runningAtKill: number | undefined;
    kill.mockImplementation(() => {
      runningAtKill = service.running().length;
      return true;
    });
    install({ signals: [SIGNAL] });
    process.emit(SIGNAL, SIGNAL);
    await eventually(() => kill.mock.calls.length > 0, 10_000, 'the re-raise');
    expect(kill.mock.calls).toEqual([[process.pid, SIGNAL]]);
    expect(runningAtKill).toBe(0);
    expect(lease.active).toBe(false);
    expect(process.listenerCount(SIGNAL)).toBe(0);
    expect(exit).not.toHaveBeenCalled();
  });

  it("with the host's own handler: ends the sessions and leaves the rest to the host", async () => {
    const host = vi.fn();
    process.on(SIGNAL, host);
    try {
      held();
      install({ signals: [SIGNAL] });
      process.emit(SIGNAL, SIGNAL);
      await eventually(() => service.running().length === 0, 10_000, 'the DELETE');
      // The hooks' last step runs after the DELETE's answer: give it its turn.
      await new Promise((r) => setTimeout(r, 50));
      expect(host).toHaveBeenCalledOnce();
      expect(kill).not.toHaveBeenCalled();
      expect(process.listeners(SIGNAL)).toHaveLength(2);
    } finally {
      process.off(SIGNAL, host);
    }
  });

  it('a cooperative handler of someone else is not the host: the hooks still re-raise', async () => {
    const other = Object.defineProperty(() => {}, COOPERATIVE, { value: true });
    process.on(SIGNAL, other);
    try {
      install({ signals: [SIGNAL] });
      process.emit(SIGNAL, SIGNAL);
      await eventually(() => kill.mock.calls.length > 0, 10_000, 'the re-raise');
      expect(kill.mock.calls).toEqual([[process.pid, SIGNAL]]);
    } finally {
      process.off(SIGNAL, other);
    }
  });

  it('does not wait past timeoutMs for a DELETE that hangs', async () => {
    let answer!: () => void;
    const hold = new Promise<void>((resolve) => {
      answer = resolve;
    });
    service.on('DELETE', ONE, heldUntil(hold, json(200, { data: { status: 'success' } })));
    const lease = held();
    install({ signals: [SIGNAL], timeoutMs: 200 });
    process.emit(SIGNAL, SIGNAL);
    await eventually(() => kill.mock.calls.length > 0, 10_000, 'the re-raise');
    // Re-raised while the DELETE was still on the wire.
    expect(service.calls('DELETE', ONE)).toHaveLength(1);
    expect(lease.active).toBe(true);
    answer();
    await lease.release();
  });
});

describe('a create on the wire when the signal comes', () => {
  const LIST = /^\/sessions$/;

  it('waits for its answer up to timeoutMs - 1.5 s, and deletes the session it returns', async () => {
    const api = service.api();
    const answer = deferred<SessionCreated>();
    const create = tracker.createSent(api, {} as never, () => answer.promise);
    let runningAtKill: number | undefined;
    kill.mockImplementation(() => {
      runningAtKill = service.running().length;
      return true;
    });
    install({ signals: [SIGNAL], timeoutMs: 10_000 });
    process.emit(SIGNAL, SIGNAL);
    // The answer comes a moment later (after a timer of the hooks' own could have fired).
    setTimeout(() => answer.resolve(created(service.createSession('').id)), 50);
    await eventually(() => kill.mock.calls.length > 0, 10_000, 'the re-raise');
    await create.call;
    expect(runningAtKill).toBe(0);
    expect(service.calls('DELETE', ONE)).toHaveLength(1);
  });

  it('reconciles a create still unanswered after that grace, before timeoutMs runs out', async () => {
    const api = service.api();
    const answer = deferred<SessionCreated>();
    tracker.createSent(api, {} as never, () => answer.promise);
    let listsAtKill: number | undefined;
    kill.mockImplementation(() => {
      listsAtKill = service.calls('GET', LIST).length;
      return true;
    });
    // Grace 100 ms: the reconciliation's list of running sessions goes out before the 1.6 s
    // bound re-raises.
    install({ signals: [SIGNAL], timeoutMs: 1600 });
    process.emit(SIGNAL, SIGNAL);
    await eventually(() => kill.mock.calls.length > 0, 10_000, 'the re-raise');
    expect(listsAtKill).toBeGreaterThanOrEqual(1);
    answer.resolve(created(service.createSession('').id));
  });
});

describe('on beforeExit', () => {
  it('ends the sessions and neither exits nor re-raises', async () => {
    const lease = held();
    install({ signals: [] });
    process.emit('beforeExit', 0);
    await eventually(() => !lease.active, 10_000, 'the release');
    expect(service.running()).toEqual([]);
    expect(kill).not.toHaveBeenCalled();
    expect(exit).not.toHaveBeenCalled();
  });
});

describe('on an uncaught exception', () => {
  /** Runs `body` with the test runner's own uncaughtException handlers set aside. */
  async function withoutRunnerHandlers(body: () => Promise<void>): Promise<void> {
    const saved = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    try {
      await body();
    } finally {
      process.removeAllListeners('uncaughtException');
      for (const listener of saved) process.on('uncaughtException', listener);
    }
  }

  it('with no host handler: ends the sessions, prints the error as Node would, exits 1', async () => {
    await withoutRunnerHandlers(async () => {
      const lease = held();
      let runningAtExit: number | undefined;
      exit.mockImplementation((() => {
        runningAtExit = service.running().length;
      }) as never);
      install({ signals: [] });
      emitUncaught(new Error('the host broke'));
      await eventually(() => exit.mock.calls.length > 0, 10_000, 'the exit');
      expect(exit.mock.calls).toEqual([[1]]);
      expect(runningAtExit).toBe(0);
      expect(lease.active).toBe(false);
      const printed = stderr.mock.calls.map((c) => String(c[0])).join('');
      expect(printed).toContain('Error: the host broke');
      expect(printed).toMatch(/\n {4}at /);
      expect(process.listenerCount('uncaughtException')).toBe(0);
    });
  });

  it("with the host's handler: ends the sessions, prints nothing, does not exit", async () => {
    await withoutRunnerHandlers(async () => {
      const host = vi.fn();
      process.on('uncaughtException', host);
      held();
      install({ signals: [] });
      emitUncaught(new Error('handled by the host'));
      await eventually(() => service.running().length === 0, 10_000, 'the DELETE');
      await new Promise((r) => setTimeout(r, 50));
      expect(host).toHaveBeenCalledOnce();
      expect(exit).not.toHaveBeenCalled();
      expect(stderr).not.toHaveBeenCalled();
    });
  });
});
