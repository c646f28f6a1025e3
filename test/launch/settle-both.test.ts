/** close()'s settleBoth: both promises waited for, and which failure wins. */
import { describe, expect, it } from 'vitest';
import { settleBoth } from '../../src/launch/settle-both.js';
import { rejection } from '../helpers/rejection.js';

describe('settleBoth', () => {
  it('waits for both, and a failed finish wins over a failed disconnect', async () => {
    const order: string[] = [];
    const late = (name: string, fail: boolean) =>
      new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          order.push(name);
          if (fail) reject(new Error(name));
          else resolve();
        }),
      );
    await settleBoth(late('disconnect', false), late('finish', false));
    expect(order).toEqual(['disconnect', 'finish']);
    // The disconnect fails first, yet settleBoth still waits for finish() before throwing.
    order.length = 0;
    const both = await rejection(settleBoth(late('disconnect', true), late('finish', true)));
    expect((both as Error).message).toBe('finish');
    expect(order).toEqual(['disconnect', 'finish']);
    order.length = 0;
    const disconnectOnly = await rejection(
      settleBoth(late('disconnect', true), late('finish', false)),
    );
    expect((disconnectOnly as Error).message).toBe('disconnect');
    expect(order).toEqual(['disconnect', 'finish']);
    const finishOnly = await rejection(
      settleBoth(Promise.resolve(), Promise.reject(new Error('finish'))),
    );
    expect((finishOnly as Error).message).toBe('finish');
  });
});
