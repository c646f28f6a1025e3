import { describe, expect, it } from 'vitest';
import { FaultRegistry, matchesFault } from '../../../src/emulator/server/faults.js';

describe('fault matching', () => {
  it('matches an exact path, with or without a method', () => {
    expect(matchesFault({ path: '/a/b' }, 'GET', '/a/b')).toBe(true);
    expect(matchesFault({ path: '/a/b', method: 'post' }, 'POST', '/a/b')).toBe(true);
    expect(matchesFault({ path: '/a/b', method: 'POST' }, 'GET', '/a/b')).toBe(false);
    expect(matchesFault({ path: '/a/b' }, 'GET', '/a/b/c')).toBe(false);
  });

  it('lets * match any run of characters, slashes included', () => {
    expect(
      matchesFault({ path: '/api/v2/browser/sessions/*' }, 'GET', '/api/v2/browser/sessions/x'),
    ).toBe(true);
    expect(matchesFault({ path: '*/pages' }, 'GET', '/api/v2/browser/sessions/x/pages')).toBe(true);
    expect(matchesFault({ path: '/a.b*' }, 'GET', '/aXb')).toBe(false);
    expect(matchesFault({ path: '/a/*/c/*' }, 'GET', '/a/b/c/d/e')).toBe(true);
    expect(matchesFault({ path: '/a/*/c/*' }, 'GET', '/a/b/d')).toBe(false);
    expect(matchesFault({ path: '**' }, 'GET', '')).toBe(true);
    expect(matchesFault({ path: '/x*y*z' }, 'GET', '/xayybz')).toBe(true);
    expect(matchesFault({ path: '/x*y*z' }, 'GET', '/xayybzq')).toBe(false);
  });

  it('matches a 160-character pattern of many * against a long path in well under a second', () => {
    // `*a` × 80 is exponential for a backtracking regex: 44 s for one request before.
    const pattern = '*a'.repeat(80);
    const started = performance.now();
    expect(matchesFault({ path: pattern }, 'GET', `/${'a'.repeat(4000)}b`)).toBe(false);
    expect(matchesFault({ path: pattern }, 'GET', 'a'.repeat(200))).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('FaultRegistry', () => {
  it('serves a fault count times, then forgets it', () => {
    const faults = new FaultRegistry();
    faults.add({ path: '/x', status: 503, count: 2 });
    expect(faults.take('GET', '/x')?.status).toBe(503);
    expect(faults.list()).toHaveLength(1);
    expect(faults.take('GET', '/x')?.status).toBe(503);
    expect(faults.take('GET', '/x')).toBeUndefined();
    expect(faults.list()).toEqual([]);
  });

  it('serves the oldest matching fault first and clears all on demand', () => {
    const faults = new FaultRegistry();
    faults.add({ path: '/x', status: 500 });
    faults.add({ path: '*', status: 502 });
    expect(faults.take('GET', '/x')?.status).toBe(500);
    expect(faults.take('GET', '/x')?.status).toBe(502);
    faults.add({ path: '*', status: 502 });
    faults.clear();
    expect(faults.take('GET', '/x')).toBeUndefined();
  });
});
