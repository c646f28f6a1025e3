import { describe, expect, it } from 'vitest';
import { callScope, raceAbort } from '../../src/http/call-options.js';
import { AbortError, TimeoutError } from '../../src/http/errors.js';
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
