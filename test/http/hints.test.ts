/** Which hint a failed connection or a 404 gets, socket error by socket error (issue 18). */
import { describe, expect, it } from 'vitest';
import { connectionHint, notFoundHintFor, notTheApiHint } from '../../src/http/hints.js';

describe('connectionHint', () => {
  const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it('names the variable of each service when nothing listens', () => {
    expect(connectionHint('account', 'http://h:1', withCode('ECONNREFUSED'))).toBe(
      'nothing is listening at http://h:1: start the service (for a local emulator: `remote-browser emulator`) or correct REMOTE_BROWSER_ACCOUNT_URL',
    );
  });

  it.each([
    withCode('ERR_SSL_WRONG_VERSION_NUMBER'),
    withCode('ERR_SSL_PACKET_LENGTH_TOO_LONG'),
    new Error('write EPROTO ... wrong version number'),
    new Error('socket', { cause: new Error('packet length too long') }),
    new Error('the server sent an HTTP request'),
  ])('tells a TLS client of a plain-HTTP service to use http:// (%s)', (error) => {
    expect(connectionHint('browser', 'https://h:8', error)).toBe(
      'https://h:8 does not speak TLS: use http://h:8 in REMOTE_BROWSER_URL',
    );
  });

  it('says a host does not resolve, and gives no hint for other failures', () => {
    for (const code of ['ENOTFOUND', 'EAI_AGAIN']) {
      expect(connectionHint('browser', 'https://nohost', withCode(code))).toBe(
        'the host of https://nohost does not resolve: check REMOTE_BROWSER_URL',
      );
    }
    expect(
      connectionHint('browser', 'https://h', withCode('ECONNRESET', 'other side closed')),
    ).toBeUndefined();
    expect(connectionHint('browser', 'https://h', undefined)).toBeUndefined();
  });
});

describe('notTheApiHint', () => {
  const hint = (body: unknown, staticRoute = false, service: 'browser' | 'account' = 'browser') =>
    notTheApiHint(service, 'https://h/x', staticRoute, body);

  it('stays quiet for an API-shaped 404 on a route with an id', () => {
    expect(hint({ error: 'Not found' })).toBeUndefined();
    expect(hint({ detail: ['Not found'] })).toBeUndefined();
    expect(hint({ error: 'Not found', code: 404 })).toBeUndefined();
  });

  it('speaks for a static route, and for bodies that are not an API error', () => {
    const browser =
      "https://h/x does not look like the browser service's API (it has no such route): set REMOTE_BROWSER_URL to the service origin (e.g. https://host, without a path; the client appends /api/v2/browser)";
    expect(hint({ error: 'Not found' }, true)).toBe(browser);
    for (const body of ['<html>', ['a'], { code: 404 }, null, undefined])
      expect(hint(body)).toBe(browser);
    expect(hint('<html>', false, 'account')).toBe(
      "https://h/x does not look like the account service's API (it has no such route): set REMOTE_BROWSER_ACCOUNT_URL to the service origin (e.g. https://host, without a path; the client appends /api/v2/base)",
    );
  });
});

describe('notFoundHintFor: the hint a service client gives its transport', () => {
  const hint = notFoundHintFor('browser', 'https://h/api/v2/browser', ['/sessions', '/tools/*']);

  it('says the URL is not the API on a static route (exact or prefix*), even with an API body', () => {
    expect(hint('/sessions', { error: 'Not found' })).toContain('does not look like');
    expect(hint('/tools/click', { error: 'Not found' })).toContain('does not look like');
  });

  it("says nothing for a route with an id that answered the API's JSON error", () => {
    expect(hint('/sessions/abc', { error: 'no such session' })).toBeUndefined();
  });

  it("says it for any route whose 404 is not the API's JSON", () => {
    expect(hint('/sessions/abc', '<html>nginx</html>')).toContain('https://h/api/v2/browser');
  });
});
