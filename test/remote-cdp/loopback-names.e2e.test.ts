/**
 * `*.localhost` is the client's loopback for the tunnel and the WebSocket bridge alike, as it is
 * for a local Chromium: no resolver on this machine knows `app.localhost`, so before, the page
 * failed with net::ERR_NAME_NOT_RESOLVED (and where a resolver answered, it could point at
 * another machine). Remote isolation, defaults.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { defaultPage, launchRemote } from '../../src/playwright/index.js';
import { type DevServer, startDevServer } from '../helpers/dev-server.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';

const env = useEmulatorAndSite({ ffmpegPath: false, isolation: 'remote' });
let dev: DevServer;
let api: BrowserApi;

beforeEach(async () => {
  dev = await startDevServer();
  api = await env.newAccountApi();
});
afterEach(async () => {
  await dev.close();
  await api.close();
});

it('serves http://app.localhost:PORT/ and its WebSockets from the client loopback', async () => {
  const browser = await launchRemote({ api });
  try {
    const page = defaultPage(browser);
    const response = await page.goto(`http://app.localhost:${dev.port}/ws.html`);
    expect(response?.status()).toBe(200);
    await expect.poll(() => page.title()).toBe('ws done');
    expect(dev.requests.filter((r) => r.path === '/ws.html')).toEqual([
      { method: 'GET', path: '/ws.html', fromClient: true },
    ]);
    expect(dev.sockets.map((s) => s.fromClient)).toEqual([true, true]);
  } finally {
    await browser.close();
  }
});
