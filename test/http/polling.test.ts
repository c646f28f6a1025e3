import { describe, expect, it } from 'vitest';
import { AbortError, TimeoutError } from '../../src/http/errors.js';
import { poll } from '../../src/http/polling.js';

describe('poll', () => {
  it('polls until done, reporting every value', async () => {
    let n = 0;
    const seen: number[] = [];
    const out = await poll(async () => ++n, {
      what: 'count',
      intervalMs: 5,
      isDone: (v) => v === 3,
      onProgress: (v) => seen.push(v),
    });
    expect(out).toBe(3);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('times out with a TimeoutError naming the operation', async () => {
    const err: any = await poll(async () => 0, {
      what: 'recordings.waitForPublished(s1)',
      intervalMs: 20,
      timeout: 80,
      isDone: () => false,
    }).catch((e: any) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toContain('recordings.waitForPublished(s1)');
  });

  it('stops when the signal aborts, also during a fetch', async () => {
    const controller = new AbortController();
    const pending = poll(
      ({ signal }) =>
        new Promise<number>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('cancelled'))),
        ),
      { what: 'x', intervalMs: 5, signal: controller.signal, isDone: () => false },
    );
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });

  it('passes on an error thrown by the fetch', async () => {
    await expect(
      poll(
        async () => {
          throw new Error('boom');
        },
        { what: 'x', intervalMs: 5, isDone: () => true },
      ),
    ).rejects.toThrow('boom');
  });

  it('asks intervalMs(attempt) for each pause, counting attempts from 0', async () => {
    let n = 0;
    const asked: number[] = [];
    const out = await poll(async () => ++n, {
      what: 'count',
      intervalMs: (attempt) => {
        asked.push(attempt);
        return 1;
      },
      isDone: (v) => v === 3,
    });
    expect(out).toBe(3);
    expect(asked).toEqual([0, 1]);
  });

  it('fails at once for an already aborted signal, fetching nothing', async () => {
    let fetches = 0;
    const controller = new AbortController();
    controller.abort();
    const pending = poll(
      async () => {
        fetches++;
        return 0;
      },
      { what: 'x', intervalMs: 5, signal: controller.signal, isDone: () => true },
    );
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(fetches).toBe(0);
  });
});
