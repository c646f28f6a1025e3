/** The browser service's `{ data }` envelope (src/browser-api/envelope.ts). */
import { describe, expect, it } from 'vitest';
import { unwrapData } from '../../src/browser-api/envelope.js';
import { ResponseValidationError } from '../../src/http/errors.js';

describe('unwrapData', () => {
  it('returns what `data` holds, whatever it is', () => {
    expect(unwrapData({ data: { id: 's1' } }, 'x')).toEqual({ id: 's1' });
    expect(unwrapData({ data: null }, 'x')).toBeNull();
    expect(unwrapData({ data: [1, 2] }, 'x')).toEqual([1, 2]);
  });

  it('refuses a body that is not the envelope, naming the field and the call', () => {
    for (const body of [undefined, null, 'text', [], { items: [] }]) {
      const error = (() => {
        try {
          unwrapData(body, 'sessions.list');
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect((error as Error).message).toContain('sessions.list');
      expect((error as Error).message).toContain('"data" is missing');
    }
  });
});
