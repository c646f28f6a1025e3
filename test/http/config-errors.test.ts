/**
 * Configuration mistakes a newcomer makes, each answered with one line saying what to change,
 * against real loopback servers (issue 16).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountApi } from '../../src/account-api/index.js';
import { BrowserApi } from '../../src/browser-api/index.js';
import { resolveAccountConfig, resolveBrowserConfig } from '../../src/http/config.js';
import {
  isAuthenticationError,
  isConfigurationError,
  isConnectionError,
  isNotFoundError,
} from '../../src/http/errors.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';

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
