import { afterEach, describe, expect, it } from 'vitest';
import { resolveAccountConfig, resolveBrowserConfig } from '../../src/http/config.js';
import { ConfigurationError } from '../../src/http/errors.js';
import { clearRegisteredSecrets, redact } from '../../src/http/redact.js';

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
