import { getEventListeners, once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  callScope,
  checkCallOptions,
  isAbortSignal,
  raceAbort,
  reasonText,
  timeoutProblem,
  waitInScope,
} from '../../src/http/call-options.js';
import { AbortError, RequestValidationError, TimeoutError } from '../../src/http/errors.js';
import { deferred } from '../helpers/deferred.js';

describe('raceAbort', () => {
  it('settles like the work when the scope does not abort', async () => {
    const scope = callScope({}, 0);
    await expect(raceAbort(Promise.resolve(7), scope, 'w')).resolves.toBe(7);
    await expect(raceAbort(Promise.reject(new Error('boom')), scope, 'w')).rejects.toThrow('boom');
  });

  it("rejects with the scope's error on abort, and leaves the work running for the caller", async () => {
    const controller = new AbortController();
    const scope = callScope({ signal: controller.signal }, 0);
    const work = deferred<string>();
    const raced = raceAbort(work.promise, scope, 'launchRemote');
    controller.abort('stop');
    const error = await raced.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as Error).message).toBe('launchRemote: aborted (stop)');
    work.resolve('late');
    await expect(work.promise).resolves.toBe('late');
  });

  it('rejects at once when the scope already aborted, and names a timeout as one', async () => {
    const controller = new AbortController();
    controller.abort();
    const aborted = callScope({ signal: controller.signal }, 0);
    await expect(raceAbort(Promise.resolve(1), aborted, 'w')).rejects.toBeInstanceOf(AbortError);
    const timed = callScope({ timeout: 1 }, 0);
    const never = deferred<number>();
    await expect(raceAbort(never.promise, timed, 'w')).rejects.toBeInstanceOf(TimeoutError);
  });
});

/**
 * The checks and the scope of a call's `{ signal, timeout }`, each pinned by the mutation pass
 * (issue 18). Short real timers only (tens of ms): what is asserted is whether a timer fired at
 * all, never how long anything took.
 */
const RULE = 'must be a number of ms >= 0 (0 or Infinity: no timeout); got';

describe('timeoutProblem and isAbortSignal', () => {
  it.each([undefined, 0, 5, Number.POSITIVE_INFINITY])('accepts %s', (value) => {
    expect(timeoutProblem(value)).toBeUndefined();
  });

  it.each([
    { value: -1, shown: '-1' },
    { value: Number.NaN, shown: 'NaN' },
    { value: '5s', shown: '"5s"' },
    { value: null, shown: 'null' },
    { value: true, shown: 'true' },
    { value: [5], shown: 'an array' },
    { value: { ms: 5 }, shown: 'an object' },
  ])('rejects a timeout shown as $shown', ({ value, shown }) => {
    expect(timeoutProblem(value)).toBe(`${RULE} ${shown}`);
  });

  it('knows a signal, also one of another realm by its shape, and nothing else', () => {
    const listen = () => {};
    expect(isAbortSignal(new AbortController().signal)).toBe(true);
    expect(isAbortSignal({ aborted: false, addEventListener: listen })).toBe(true);
    expect(isAbortSignal({ aborted: 'no', addEventListener: listen })).toBe(false);
    expect(isAbortSignal({ aborted: false, addEventListener: 'listen' })).toBe(false);
    expect(isAbortSignal({ aborted: false })).toBe(false);
    expect(
      isAbortSignal(Object.assign(() => {}, { aborted: false, addEventListener: listen })),
    ).toBe(false);
    expect(isAbortSignal(null)).toBe(false);
    expect(isAbortSignal('stop')).toBe(false);
  });
});

describe('checkCallOptions', () => {
  it('returns the options as given, and {} for none', () => {
    const options = { signal: new AbortController().signal, timeout: 5 };
    expect(checkCallOptions('w', options)).toBe(options);
    expect(checkCallOptions('w', undefined)).toEqual({});
  });

  it.each([
    ['x', '"x"'],
    [null, 'null'],
    [[1], 'an array'],
    [7, '7'],
  ])('rejects options %j as not an object', (options, shown) => {
    const err: any = (() => {
      try {
        checkCallOptions('sessions.list', options);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.issues).toEqual([
      { path: 'options', message: `must be an object ({ signal?, timeout? }); got ${shown}` },
    ]);
  });

  it('names every bad field with its rule', () => {
    expect(() => checkCallOptions('w', { timeout: '5s', signal: 'stop' })).toThrow(
      expect.objectContaining({
        issues: [
          { path: 'options.timeout', message: `${RULE} "5s"` },
          {
            path: 'options.signal',
            message: 'must be an AbortSignal (e.g. AbortSignal.timeout(5000)); got "stop"',
          },
        ],
      }),
    );
  });

  it("names the call 'call' in callScope's check when no name is given", () => {
    expect(() => callScope({ timeout: -1 }, 0)).toThrow(/^call: invalid request: options\.timeout/);
  });
});

describe('callScope', () => {
  it('aborts with a TimeoutError reason and names it a timeout', async () => {
    const scope = callScope({ timeout: 1 }, 0);
    await once(scope.signal, 'abort');
    expect(scope.signal.reason).toBeInstanceOf(TimeoutError);
    expect(scope.signal.reason.message).toBe('timed out after 1 ms');
    expect(scope.abortError('w').message).toBe('w: timed out after 1 ms');
  });

  it("names the caller's abort an abort, even after the timeout fired, with its reason as cause", async () => {
    const controller = new AbortController();
    const scope = callScope({ timeout: 1, signal: controller.signal }, 0);
    await once(scope.signal, 'abort');
    const reason = new Error('user left');
    controller.abort(reason);
    const err = scope.abortError('w');
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toBe('w: aborted (user left)');
    expect(err.cause).toBe(reason);
  });

  it('names an abort error of a scope that did not abort (no signal) an abort', () => {
    const err = callScope({}, 0).abortError('w');
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toBe('w: aborted');
  });

  it('has no deadline without a timeout (0 or Infinity), whatever pause and resume do', async () => {
    for (const timeout of [0, Number.POSITIVE_INFINITY]) {
      const scope = callScope({ timeout }, 60_000);
      expect(scope.deadline).toBe(Number.POSITIVE_INFINITY);
      scope.pause();
      scope.resume();
      await sleep(20);
      expect(scope.signal.aborted).toBe(false);
    }
  });

  it('stops the clock while paused, twice without counting twice, and restarts it on resume', async () => {
    const scope = callScope({ timeout: 30 }, 0);
    scope.pause();
    await sleep(60);
    expect(scope.signal.aborted).toBe(false);
    scope.pause();
    // Paused, the deadline moves with now: what is left stays ahead of it.
    expect(scope.deadline).toBeGreaterThan(Date.now());
    scope.resume();
    await once(scope.signal, 'abort');
    expect(scope.abortError('w')).toBeInstanceOf(TimeoutError);
  });

  it('counts the time run before a pause against the timeout', async () => {
    const scope = callScope({ timeout: 10_000 }, 0);
    await sleep(60);
    scope.pause();
    // What is left is the timeout less what already ran: at least the 60 ms slept (a timer may
    // fire a millisecond early, hence 50), more on a slow machine, which only lowers it.
    expect(scope.deadline - Date.now()).toBeLessThanOrEqual(10_000 - 50);
    scope.dispose();
  });

  it('never fires after dispose', async () => {
    const scope = callScope({ timeout: 10 }, 0);
    scope.dispose();
    await sleep(40);
    expect(scope.signal.aborted).toBe(false);
  });
});

describe('reasonText, waitInScope and raceAbort', () => {
  it('shows an Error or string reason, not the default abort reason or nothing', () => {
    const controller = new AbortController();
    controller.abort();
    expect(reasonText(controller.signal.reason)).toBe('');
    expect(reasonText(new Error('gone'))).toBe(' (gone)');
    expect(reasonText('stop')).toBe(' (stop)');
    expect(reasonText(undefined)).toBe('');
    expect(reasonText(42)).toBe('');
  });

  it("rejects a wait with the scope's error as soon as the scope aborts", async () => {
    const controller = new AbortController();
    const scope = callScope({ signal: controller.signal }, 0);
    const wait = waitInScope(60_000, scope, 'retry wait');
    controller.abort('stop');
    const err = await wait.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect((err as Error).message).toBe('retry wait: aborted (stop)');
  });

  it("leaves no listener on the scope's signal, whether the work or the abort came first", async () => {
    // One scope may race several steps (a launch's create, then its connect): each step must
    // take its listener away, or they pile up on the signal.
    const controller = new AbortController();
    const scope = callScope({ signal: controller.signal }, 0);
    const scoped = () => getEventListeners(scope.signal, 'abort').length;
    await raceAbort(Promise.resolve(1), scope, 'w');
    await sleep(0);
    expect(scoped()).toBe(0);
    let finish!: (value: number) => void;
    const raced = raceAbort(new Promise<number>((resolve) => (finish = resolve)), scope, 'w');
    expect(scoped()).toBe(1);
    controller.abort();
    await expect(raced).rejects.toBeInstanceOf(AbortError);
    expect(scoped()).toBe(0);
    finish(2);
    await sleep(0);
    expect(scoped()).toBe(0);
  });
});
