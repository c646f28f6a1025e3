import { afterEach, describe, expect, it } from 'vitest';
import { setEnv, withEnv } from './env.js';

const NAME = 'REMOTE_BROWSER_ENV_HELPER_TEST';
afterEach(() => {
  delete process.env[NAME];
});

describe('test env helper', () => {
  it('deletes a variable that was unset before, instead of storing "undefined"', async () => {
    await withEnv({ [NAME]: 'set-for-a-while' }, () => {
      expect(process.env[NAME]).toBe('set-for-a-while');
    });
    expect(NAME in process.env).toBe(false);
  });

  it('puts back a value that was set, also after a throw and after a delete', async () => {
    process.env[NAME] = 'original';
    await expect(
      withEnv({ [NAME]: 'changed' }, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(process.env[NAME]).toBe('original');
    const restore = setEnv({ [NAME]: undefined });
    expect(NAME in process.env).toBe(false);
    restore();
    expect(process.env[NAME]).toBe('original');
  });
});
