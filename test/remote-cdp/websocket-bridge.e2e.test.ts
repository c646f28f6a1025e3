/**
 * The WebSocket bridge end to end: a dev server on the client's loopback, a real Chromium behind
 * the emulator's remote isolation (it cannot reach this machine's loopback: only the bridge
 * can), real playwright-core and puppeteer-core, defaults.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { defaultPage, launchRemote } from '../../src/playwright/index.js';
import { launchRemote as launchPuppeteer } from '../../src/puppeteer/index.js';
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

const expected = {
  got: ['welcome', 'hello', 'bin:1,2,255', 'bin:98,108,111,98'],
  first: [4000, 'done', true],
  second: [4001, 'bye', true],
};

describe('WebSockets from the first document of a tab', () => {
  it("Playwright: one page.goto of a dev server in the session's own tab opens its sockets", async () => {
    const browser = await launchRemote({ api });
    try {
      const page = defaultPage(browser);
      await page.goto(`${dev.origin}/ws.html`);
      await expect.poll(() => page.title()).toBe('ws done');
      expect(await page.evaluate(() => (window as { wsResult?: unknown }).wsResult)).toEqual(
        expected,
      );
      expect(dev.sockets.map((s) => s.fromClient)).toEqual([true, true]);
    } finally {
      await browser.close();
    }
  });

  it("Puppeteer: one page.goto of a dev server in the session's own tab opens its sockets", async () => {
    const browser = await launchPuppeteer({ api });
    try {
      const [page] = await browser.pages();
      await page!.goto(`${dev.origin}/ws.html`);
      await page!.waitForFunction(() => document.title === 'ws done');
      expect(await page!.evaluate(() => (window as { wsResult?: unknown }).wsResult)).toEqual(
        expected,
      );
      expect(dev.sockets.map((s) => s.fromClient)).toEqual([true, true]);
    } finally {
      await browser.close();
    }
  });
});
