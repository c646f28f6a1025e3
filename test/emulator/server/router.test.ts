import { describe, expect, it } from 'vitest';
import { Router } from '../../../src/emulator/server/router.js';

const handler = (name: string) => () => ({ body: name });

describe('Router', () => {
  it('matches a method and a pattern and decodes path parameters', () => {
    const router = new Router();
    router.add('GET', '/sessions/:id', handler('one'));
    const match = router.match('GET', '/sessions/a%20b');
    expect(match?.params).toEqual({ id: 'a b' });
  });

  it('does not match another method, a longer path or a shorter one', () => {
    const router = new Router();
    router.add('GET', '/sessions/:id', handler('one'));
    expect(router.match('POST', '/sessions/x')).toBeUndefined();
    expect(router.match('GET', '/sessions/x/pages')).toBeUndefined();
    expect(router.match('GET', '/sessions')).toBeUndefined();
  });

  it('mounts a route module under its prefix, so another service can share the server', () => {
    const router = new Router();
    router.mount({
      prefix: '/api/v2/base/',
      register: (r) => r.add('GET', '/balance', handler('b')),
    });
    expect(router.match('GET', '/api/v2/base/balance')).toBeDefined();
    expect(router.match('GET', '/balance')).toBeUndefined();
  });

  it('marks the paths of a fault-free module, and only those, as never faulted', () => {
    const router = new Router();
    router.mount({ prefix: '/_emulator', faultFree: true, register: () => {} });
    router.mount({ prefix: '/api/v2/browser', register: () => {} });
    expect(router.isFaultFree('/_emulator/faults')).toBe(true);
    expect(router.isFaultFree('/api/v2/browser/sessions')).toBe(false);
    expect(router.isFaultFree('/_emulatorx/faults')).toBe(false);
  });

  it('answers HEAD with the GET route', () => {
    const router = new Router();
    router.add('GET', '/file/:id', handler('file'));
    expect(router.match('HEAD', '/file/1')?.params).toEqual({ id: '1' });
  });

  it('prefers the first registered route when two patterns match', () => {
    const router = new Router();
    const first = handler('literal');
    router.add('GET', '/sessions/list', first);
    router.add('GET', '/sessions/:id', handler('param'));
    expect(router.match('GET', '/sessions/list')?.handler).toBe(first);
  });
});
