import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountApi } from '../../src/account-api/index.js';
import { BrowserApi } from '../../src/browser-api/index.js';
import {
  normalizeOrigin,
  resolveAccountConfig,
  resolveBrowserConfig,
} from '../../src/http/config.js';
import {
  ConfigurationError,
  isAuthenticationError,
  isConfigurationError,
  isConnectionError,
  isNotFoundError,
} from '../../src/http/errors.js';
import { clearRegisteredSecrets, redact } from '../../src/http/redact.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';

afterEach(() => clearRegisteredSecrets());

describe('resolveBrowserConfig', () => {
  it('reads the environment, code wins', () => {
    const env = {
      REMOTE_BROWSER_URL: 'https://env.example',
      REMOTE_BROWSER_TOKEN: 'env-token-1',
      REMOTE_BROWSER_PROXY_PASSWORD: 'env-proxy-pw',
    };
    expect(resolveBrowserConfig({}, env)).toEqual({
      baseUrl: 'https://env.example',
      token: 'env-token-1',
      proxyPassword: 'env-proxy-pw',
    });
    expect(
      resolveBrowserConfig({ token: 'code-token-2', baseUrl: 'http://127.0.0.1:9/' }, env),
    ).toMatchObject({
      token: 'code-token-2',
      baseUrl: 'http://127.0.0.1:9',
    });
  });

  it('tolerates the API path pasted into the URL', () => {
    expect(
      resolveBrowserConfig(
        { token: 'tok-123456', baseUrl: 'https://h.example/api/v2/browser/' },
        {},
      ).baseUrl,
    ).toBe('https://h.example');
  });

  it('names the env var and where the token is found when it is missing', () => {
    const fn = () => resolveBrowserConfig({}, { REMOTE_BROWSER_URL: 'https://h.example' });
    expect(fn).toThrow(ConfigurationError);
    expect(fn).toThrow(/REMOTE_BROWSER_TOKEN.*dashboard's browser page/);
  });

  it('names REMOTE_BROWSER_URL when the URL is missing or not http(s)', () => {
    expect(() => resolveBrowserConfig({}, { REMOTE_BROWSER_TOKEN: 't-123456' })).toThrow(
      /REMOTE_BROWSER_URL/,
    );
    expect(() =>
      resolveBrowserConfig({ baseUrl: 'ftp://x' }, { REMOTE_BROWSER_TOKEN: 't-123456' }),
    ).toThrow(/http or https/);
    expect(() =>
      resolveBrowserConfig({ baseUrl: 'not a url' }, { REMOTE_BROWSER_TOKEN: 't-123456' }),
    ).toThrow(/REMOTE_BROWSER_URL/);
  });

  it('registers the credentials it finds for redaction', () => {
    resolveBrowserConfig(
      {},
      {
        REMOTE_BROWSER_URL: 'https://h.example',
        REMOTE_BROWSER_TOKEN: 'tok-abcdef',
        REMOTE_BROWSER_PROXY_PASSWORD: 'proxy-pw-xyz',
      },
    );
    expect(redact('tok-abcdef proxy-pw-xyz')).toBe('[REDACTED] [REDACTED]');
  });
});

describe('resolveAccountConfig', () => {
  it('names REMOTE_BROWSER_API_KEY and the Profile section when the key is missing', () => {
    expect(() =>
      resolveAccountConfig({}, { REMOTE_BROWSER_ACCOUNT_URL: 'https://a.example' }),
    ).toThrow(/REMOTE_BROWSER_API_KEY.*Profile section/);
    expect(() => resolveAccountConfig({ apiKey: 'k-123456' }, {})).toThrow(
      /REMOTE_BROWSER_ACCOUNT_URL/,
    );
  });

  it('strips the account API path', () => {
    expect(
      resolveAccountConfig({ apiKey: 'k-123456', baseUrl: 'https://a.example/api/v2/base' }, {})
        .baseUrl,
    ).toBe('https://a.example');
  });
});

describe('a plain-http baseUrl', () => {
  /** The RemoteBrowserWarning lines `run` emits, collected from the process's own 'warning' event. */
  async function warningsOf(run: () => void): Promise<Error[]> {
    const seen: Error[] = [];
    const listener = (warning: Error) => {
      if (warning.name === 'RemoteBrowserWarning') seen.push(warning);
    };
    process.on('warning', listener);
    try {
      run();
      // Node emits warnings on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listener);
    }
    return seen;
  }

  it('to a host that is not loopback warns once with a stable code, naming no secret', async () => {
    const token = 'insecure-token-777';
    const warnings = await warningsOf(() => {
      for (let i = 0; i < 3; i++) {
        resolveBrowserConfig({ token, baseUrl: 'http://browser.insecure.example:8080/' }, {});
      }
      resolveAccountConfig({ apiKey: token, baseUrl: 'http://browser.insecure.example:8080' }, {});
    });
    expect(warnings).toHaveLength(1);
    expect((warnings[0] as Error & { code?: string }).code).toBe('REMOTE_BROWSER_INSECURE_URL');
    expect(warnings[0]?.message).toMatch(
      /^baseUrl \(or REMOTE_BROWSER_URL\) http:\/\/browser\.insecure\.example:8080 is plain http to a host that is not loopback: /,
    );
    expect(warnings[0]?.message).not.toContain(token);
  });

  it.each([
    'http://127.0.0.1:9',
    'http://127.8.9.10',
    'http://localhost:8787',
    'http://api.localhost',
    'http://[::1]:9',
    'https://browser.secure.example',
  ])('to %s stays silent', async (baseUrl) => {
    const warnings = await warningsOf(() =>
      resolveBrowserConfig({ token: 'tok-123456', baseUrl }, {}),
    );
    expect(warnings).toEqual([]);
  });
});

/**
 * Configuration at its edges, each pinned by the mutation pass (issue 18): what counts as a
 * missing value and every way an origin is rejected or cleaned.
 */
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

/**
 * Configuration mistakes a newcomer makes, each answered with one line saying what to change,
 * against real loopback servers (issue 16).
 */
const TOKEN = 'tok-config-errors-123';
let server: TestServer | undefined;
const clients: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server?.close();
  server = undefined;
});

function browser(baseUrl: string): BrowserApi {
  const api = new BrowserApi({ baseUrl, token: TOKEN, retry: { retries: 0 } });
  clients.push(api);
  return api;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('configuration errors', () => {
  it('reports every missing variable at once, each with where to find it', () => {
    const browserError = thrown(() => resolveBrowserConfig({}, {}));
    expect(isConfigurationError(browserError)).toBe(true);
    expect(String(browserError)).toMatch(/REMOTE_BROWSER_URL .*remote-browser emulator/);
    expect(String(browserError)).toMatch(/REMOTE_BROWSER_TOKEN .*dashboard's browser page/);
    const accountError = thrown(() => resolveAccountConfig({}, {}));
    expect(String(accountError)).toMatch(/REMOTE_BROWSER_ACCOUNT_URL/);
    expect(String(accountError)).toMatch(/REMOTE_BROWSER_API_KEY .*Profile section/);
  });

  it('names the proxy password with the others when the caller creates sessions', () => {
    const all = String(thrown(() => resolveBrowserConfig({}, {}, { proxyPassword: true })));
    expect(all).toMatch(/configuration \(3\)/);
    expect(all).toMatch(
      /REMOTE_BROWSER_URL .*\n.*REMOTE_BROWSER_TOKEN .*\n.*REMOTE_BROWSER_PROXY_PASSWORD .*proxy settings/,
    );
    const onlyIt = thrown(() =>
      resolveBrowserConfig(
        { baseUrl: 'http://127.0.0.1:1', token: TOKEN },
        {},
        { proxyPassword: true },
      ),
    );
    expect(isConfigurationError(onlyIt)).toBe(true);
    expect(String(onlyIt)).toMatch(/configuration \(1\):\s+- REMOTE_BROWSER_PROXY_PASSWORD/);
    // Reading and ending sessions needs no proxy password.
    expect(
      resolveBrowserConfig({ baseUrl: 'http://127.0.0.1:1', token: TOKEN }, {}).proxyPassword,
    ).toBeUndefined();
  });

  it('says the scheme is missing from localhost:8787', () => {
    const error = thrown(() =>
      resolveBrowserConfig(
        {},
        { REMOTE_BROWSER_URL: 'localhost:8787', REMOTE_BROWSER_TOKEN: TOKEN },
      ),
    );
    expect(isConfigurationError(error)).toBe(true);
    expect(String(error)).toMatch(
      /REMOTE_BROWSER_URL\) has no scheme: use http:\/\/localhost:8787/,
    );
  });

  it('says nothing is listening when the connection is refused', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const error = await browser(`http://127.0.0.1:${port}`)
      .proxy.options()
      .catch((e) => e);
    expect(isConnectionError(error)).toBe(true);
    expect(String(error)).toMatch(
      new RegExp(`nothing is listening at http://127.0.0.1:${port}: .*REMOTE_BROWSER_URL`),
    );
  });

  it('says to use http:// when https:// meets a plain-HTTP service', async () => {
    server = await startTestServer();
    const https = server.origin.replace('http:', 'https:');
    const error = await browser(https)
      .proxy.options()
      .catch((e) => e);
    expect(isConnectionError(error)).toBe(true);
    expect(String(error)).toContain(
      `does not speak TLS: use ${server.origin} in REMOTE_BROWSER_URL`,
    );
    // One line, OpenSSL's record reduced to its reason; the handshake failed, so nothing was sent.
    expect(String(error)).not.toContain('\n');
    expect(String(error)).toContain('TLS handshake failed: wrong version number.');
    expect(String(error)).not.toMatch(/may have received the request/);
    expect(error.requestSent).toBe(false);
  });

  it('says the URL is not the API when a route every deployment has answers 404', async () => {
    server = await startTestServer();
    // A JSON 404 in the API's own shape, on a path without an id: the base URL has a wrong path.
    server.respond(json(404, { error: 'Not found' }));
    const error = await browser(`${server.origin}/wrong/path`)
      .configurations.validate({ country: 'us' })
      .catch((e) => e);
    expect(isNotFoundError(error)).toBe(true);
    expect(String(error)).toMatch(/does not look like the browser service's API/);
    expect(String(error)).toMatch(/set REMOTE_BROWSER_URL to the service origin/);
  });

  it('says the URL is not the API when a 404 is an HTML page, and not for an unknown id', async () => {
    server = await startTestServer();
    server.respond(
      (_req, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body>Cannot GET</body></html>');
      },
      json(404, { error: 'Session not found' }),
    );
    const api = browser(server.origin);
    expect(String(await api.sessions.retrieve('s-1').catch((e) => e))).toMatch(
      /does not look like the browser service's API/,
    );
    const unknown = await api.sessions.retrieve('s-2').catch((e) => e);
    expect(isNotFoundError(unknown)).toBe(true);
    expect(String(unknown)).not.toMatch(/does not look like/);
  });

  it('does the same for the account service', async () => {
    server = await startTestServer();
    server.respond(json(404, { error: 'Not found' }));
    const api = new AccountApi({ baseUrl: `${server.origin}/x`, apiKey: 'ak_config_errors_1' });
    clients.push(api);
    expect(String(await api.balance().catch((e) => e))).toMatch(
      /does not look like the account service's API.*REMOTE_BROWSER_ACCOUNT_URL/,
    );
  });

  it('gives the 7-day token hint exactly once', async () => {
    server = await startTestServer();
    server.respond(
      json(401, {
        error:
          "The browser token has expired (tokens are valid for 7 days): copy the current one from the dashboard's browser page again",
      }),
      json(401, { error: 'Invalid token' }),
    );
    const api = browser(server.origin);
    for (let i = 0; i < 2; i++) {
      const error = await api.proxy.options().catch((e) => e);
      expect(isAuthenticationError(error)).toBe(true);
      expect(String(error).match(/7 days/g)).toHaveLength(1);
      expect(String(error)).toMatch(/REMOTE_BROWSER_TOKEN/);
    }
  });
});
