/** Schemas built on first use (issue 18). */
import { describe, expect, it } from 'vitest';
import { lazySchema, zod } from '../../src/http/lazy-schema.js';

describe('lazySchema', () => {
  it('builds on first use, once, and behaves as the built object', () => {
    let builds = 0;
    class Built {
      a = 1;
      get twice() {
        return this.a * 2;
      }
    }
    const lazy = lazySchema(() => {
      builds++;
      return new Built();
    });
    expect(builds).toBe(0);
    expect(lazy.twice).toBe(2);
    expect('a' in lazy).toBe(true);
    expect('b' in lazy).toBe(false);
    lazy.a = 5;
    expect(lazy.twice).toBe(10);
    expect(Object.getPrototypeOf(lazy)).toBe(Built.prototype);
    expect(lazy instanceof Built).toBe(true);
    expect(Object.keys(lazy)).toEqual(['a']);
    expect({ ...lazy }).toEqual({ a: 5 });
    expect(Object.getOwnPropertyDescriptor(lazy, 'a')).toMatchObject({
      value: 5,
      configurable: true,
    });
    expect(Object.getOwnPropertyDescriptor(lazy, 'nope')).toBeUndefined();
    expect(builds).toBe(1);
  });

  it('loads zod on first use', () => {
    expect(zod().string().parse('x')).toBe('x');
    expect(zod()).toBe(zod());
  });
});
