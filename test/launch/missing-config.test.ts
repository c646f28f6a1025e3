/**
 * A launch with configuration missing says everything that is missing in one error, before any
 * request: a newcomer who sets the URL and the token must not learn about the proxy password
 * only from the session create, after a preflight on the wire (issue 16).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isConfigurationError } from '../../src/http/errors.js';
import { launchRemote } from '../../src/playwright/index.js';
import { launchRemote as launchPuppeteer } from '../../src/puppeteer/index.js';
import { TOKEN, useFakeService } from './fake-service.js';

const service = useFakeService('rb-missing-config-');
beforeEach(() => {
  for (const name of ['URL', 'TOKEN', 'PROXY_PASSWORD']) vi.stubEnv(`REMOTE_BROWSER_${name}`, '');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('a launch with missing configuration', () => {
  it('names all three variables in one error when nothing is set', async () => {
    const error = await launchRemote().catch((e: unknown) => e);
    expect(isConfigurationError(error)).toBe(true);
    const text = String(error);
    for (const name of ['URL', 'TOKEN', 'PROXY_PASSWORD'])
      expect(text).toContain(`REMOTE_BROWSER_${name} (or`);
  });

  it.each([
    ['Playwright', launchRemote],
    ['Puppeteer', launchPuppeteer],
  ] as const)(
    '%s: a missing proxy password is named before the preflight is sent',
    async (_n, launch) => {
      vi.stubEnv('REMOTE_BROWSER_URL', service.origin);
      vi.stubEnv('REMOTE_BROWSER_TOKEN', TOKEN);
      const error = await launch({ country: 'us' }).catch((e: unknown) => e);
      expect(isConfigurationError(error)).toBe(true);
      expect(String(error)).toMatch(
        /configuration \(1\):\s+- REMOTE_BROWSER_PROXY_PASSWORD \(or `proxyPassword`\)/,
      );
      expect(service.server.requests).toEqual([]);
    },
  );

  it('takes the proxy password from code as well as from the environment', async () => {
    const error = await launchRemote({
      baseUrl: service.origin,
      token: TOKEN,
      proxyPassword: 'pp-from-code',
      preflight: false,
    }).catch((e: unknown) => e);
    // It got past the configuration: the create was sent (the fake's cdp_url then refuses).
    expect(isConfigurationError(error)).toBe(false);
    expect(service.calls('POST', /^\/sessions$/)).toHaveLength(1);
  });
});
