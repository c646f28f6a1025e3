/**
 * Configuration, URL hints and debug switches at their edges, each pinned by the mutation pass
 * (issue 18): what counts as a missing value, every way an origin is rejected or cleaned, which
 * socket errors get which hint, and how DEBUG patterns match.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  normalizeOrigin,
  resolveAccountConfig,
  resolveBrowserConfig,
} from '../../src/http/config.js';
import { isDebugEnabled, setDebugSink } from '../../src/http/debug.js';
import { ConfigurationError } from '../../src/http/errors.js';
import { connectionHint, notTheApiHint } from '../../src/http/hints.js';
import { clearRegisteredSecrets } from '../../src/http/redact.js';

afterEach(() => clearRegisteredSecrets());

const origin = (value: string, apiPath = '/api/v2/browser') =>
  normalizeOrigin(value, apiPath, 'baseUrl', 'REMOTE_BROWSER_URL');
function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('did not throw');
}

describe('normalizeOrigin', () => {
  it('keeps a path prefix, drops trailing slashes and the API path, any scheme case', () => {
    expect(origin('https://h.example///')).toBe('https://h.example');
    expect(origin('HTTPS://h.example/prefix/api/v2/browser/')).toBe('https://h.example/prefix');
    expect(origin('http://h.example/prefix')).toBe('http://h.example/prefix');
    expect(origin('https://h.example/api/v2/base', '/api/v2/base')).toBe('https://h.example');
  });

  it.each([
    [
      'host.example',
      'has no scheme: use http://host.example (or https://host.example for a TLS service)',
    ],
    [
      'host.example/ab',
      'has no scheme: use http://host.example/ab (or https://host.example/ab for a TLS service)',
    ],
    [
      'localhost:8787/?next=http://x',
      'has no scheme: use http://localhost:8787/?next=http://x (or https://localhost:8787/?next=http://x for a TLS service)',
    ],
    [
      'a b.example',
      'must be an http(s) URL such as https://service.example; got a value that is not a URL',
    ],
    [
      'host.example:8787/x',
      'has no scheme: use http://host.example:8787/x (or https://host.example:8787/x for a TLS service)',
    ],
    [
      'not a url!',
      'must be an http(s) URL such as https://service.example; got a value that is not a URL',
    ],
    [
      'http://',
      'must be an http(s) URL such as https://service.example; got a value that is not a URL',
    ],
    ['ftp://h.example', 'must use http or https, not ftp:'],
    ['https://user@h.example', 'must not carry credentials in the URL'],
    ['https://:pw@h.example', 'must not carry credentials in the URL'],
  ])('rejects %j', (value, rule) => {
    expect(messageOf(() => origin(value))).toBe(`baseUrl (or REMOTE_BROWSER_URL) ${rule}`);
  });
});

describe('resolve*Config', () => {
  it('treats blank values as missing and trims the others', () => {
    const config = resolveBrowserConfig(
      { token: '   ', baseUrl: ' http://h.example ' },
      { REMOTE_BROWSER_TOKEN: ' env-token-1 ', REMOTE_BROWSER_PROXY_PASSWORD: ' ' },
    );
    expect(config).toEqual({
      token: 'env-token-1',
      baseUrl: 'http://h.example',
      proxyPassword: undefined,
    });
  });

  it('counts and lists what is missing, one line each', () => {
    const message = messageOf(() =>
      resolveAccountConfig({}, { REMOTE_BROWSER_ACCOUNT_URL: 'http://h' }),
    );
    expect(message).toBe(
      'Missing account service configuration (1): \n  - REMOTE_BROWSER_API_KEY (or `apiKey`): shown in the Profile section of the account dashboard',
    );
    expect(
      resolveAccountConfig(
        { apiKey: 'k-123456' },
        { REMOTE_BROWSER_ACCOUNT_URL: 'http://h/api/v2/base' },
      ),
    ).toEqual({
      apiKey: 'k-123456',
      baseUrl: 'http://h',
    });
  });

  it("lists several missing settings one per line, and names each service's URL variable", () => {
    expect(messageOf(() => resolveAccountConfig({}, {}))).toBe(
      'Missing account service configuration (2): \n  - REMOTE_BROWSER_ACCOUNT_URL (or `baseUrl`): the account service origin; for a local emulator run `remote-browser emulator` and export the lines it prints\n  - REMOTE_BROWSER_API_KEY (or `apiKey`): shown in the Profile section of the account dashboard',
    );
    expect(messageOf(() => resolveAccountConfig({ apiKey: 'k-123456', baseUrl: 'ftp://h' }))).toBe(
      'baseUrl (or REMOTE_BROWSER_ACCOUNT_URL) must use http or https, not ftp:',
    );
    expect(messageOf(() => resolveBrowserConfig({ token: 't-123456', baseUrl: 'ftp://h' }))).toBe(
      'baseUrl (or REMOTE_BROWSER_URL) must use http or https, not ftp:',
    );
  });

  it('asks for the proxy password only when sessions are created', () => {
    const input = { token: 'tok-123456', baseUrl: 'http://h' };
    expect(resolveBrowserConfig(input, {}).proxyPassword).toBeUndefined();
    expect(resolveBrowserConfig(input, {}, { proxyPassword: false }).proxyPassword).toBeUndefined();
    expect(messageOf(() => resolveBrowserConfig(input, {}, { proxyPassword: true }))).toMatch(
      /^Missing browser service configuration \(1\): \n {2}- REMOTE_BROWSER_PROXY_PASSWORD/,
    );
  });
});

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

describe('isDebugEnabled patterns', () => {
  it('matches whole names with * as the only wildcard', () => {
    expect(isDebugEnabled('http', 'remote-browser:h.tp')).toBe(false);
    expect(isDebugEnabled('http', 'remote-browser:ht')).toBe(false);
    expect(isDebugEnabled('http', 'x-remote-browser:http')).toBe(false);
    expect(isDebugEnabled('http', 'remote-*')).toBe(true);
    expect(isDebugEnabled('http', 'remote-browser:(http)')).toBe(false);
  });

  it('splits on commas and spaces, and an exclusion wins wherever it stands', () => {
    expect(isDebugEnabled('http', 'other, remote-browser:http')).toBe(true);
    expect(isDebugEnabled('http', ',,remote-browser:http')).toBe(true);
    expect(isDebugEnabled('http', '-remote-browser:http remote-browser:*')).toBe(false);
    expect(isDebugEnabled('http', '-remote-browser:other remote-browser:*')).toBe(true);
    expect(isDebugEnabled('http', '')).toBe(false);
  });
});

describe('the default debug sink', () => {
  it('writes each line to stderr with a newline', () => {
    const previous = setDebugSink(() => {});
    setDebugSink(previous);
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      previous('remote-browser:http a line');
      expect(write).toHaveBeenCalledWith('remote-browser:http a line\n');
    } finally {
      write.mockRestore();
    }
  });
});
