import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type BrowserRuntime, createBrowserRuntime } from '../../../src/emulator/runtime/index.js';
import type { RunningBrowser } from '../../../src/emulator/runtime/types.js';
import { type ProxyServer, startProxyServer } from './proxy-server.js';
import { startTestPages, type TestPages } from './test-pages.js';

/** A websocket upgrade attempt by hand, to see the refusal the way a client library would. */
function tryUpgrade(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url.replace(/^ws/, 'http'), {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.on('response', async (res) => {
      let body = '';
      for await (const chunk of res) body += chunk;
      resolve({ status: res.statusCode ?? 0, body });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('CDP proxy', () => {
  let runtime: BrowserRuntime;
  let pages: TestPages;
  let server: ProxyServer;
  let browser: RunningBrowser;
  let token: string;
  const sessionActivity = vi.fn();
  const proxyActivity = vi.fn();

  beforeAll(async () => {
    [runtime, pages, server] = await Promise.all([
      createBrowserRuntime({ ffmpegPath: false }),
      startTestPages(),
      startProxyServer(),
    ]);
    browser = await runtime.launch({
      sessionId: randomUUID(),
      record: false,
      onActivity: sessionActivity,
    });
    token = server.admit(browser, proxyActivity);
  });
  afterAll(async () => {
    await runtime.shutdown();
    await Promise.all([server.close(), pages.close()]);
  });

  it('hands out a ws cdp_url on the emulator host carrying the token', () => {
    expect(server.proxy.cdpUrl(browser.sessionId, token)).toBe(
      `${server.origin.replace('http', 'ws')}/cdp/${browser.sessionId}?token=${token}`,
    );
  });

  it('counts proxied client traffic as activity but not the internal screencast', async () => {
    const frames = vi.fn();
    const off = browser.onFrame(frames);
    await browser.actions.navigate(`${pages.origin}/animated`);
    sessionActivity.mockClear();
    await vi.waitFor(() => expect(frames.mock.calls.length).toBeGreaterThan(3), { timeout: 5_000 });
    off();
    expect(sessionActivity).not.toHaveBeenCalled();
    expect(proxyActivity).not.toHaveBeenCalled();

    const pw = await chromium.connectOverCDP(server.proxy.cdpUrl(browser.sessionId, token));
    await pw.close();
    expect(proxyActivity).toHaveBeenCalled();
  });

  it('lets Playwright connectOverCDP drive the session through the proxy', async () => {
    const pw = await chromium.connectOverCDP(server.proxy.cdpUrl(browser.sessionId, token));
    try {
      const page = pw.contexts()[0]!.pages()[0]!;
      await page.goto(`${pages.origin}/`);
      expect(await page.title()).toBe('Local test page');
      // The runtime follows the same page: what the client did is what page actions see.
      expect(await browser.actions.executeCode('document.title')).toBe('Local test page');
    } finally {
      await pw.close();
    }
  });

  it('lets Puppeteer connect with the cdp_url as browserWSEndpoint', async () => {
    const pp = await puppeteer.connect({
      browserWSEndpoint: server.proxy.cdpUrl(browser.sessionId, token),
      defaultViewport: null,
    });
    try {
      const [page] = await pp.pages();
      await page!.goto(`${pages.origin}/form`);
      expect(await page!.title()).toBe('Form');
    } finally {
      await pp.disconnect();
    }
  });

  it('lets Puppeteer connect with browserURL through the debugger address', async () => {
    const debuggerAddress = await server.proxy.openDebuggerAddress(browser.sessionId);
    try {
      expect(debuggerAddress.address).toMatch(/^127\.0\.0\.1:\d+$/);
      const version = await (await fetch(`http://${debuggerAddress.address}/json/version`)).json();
      expect(version.webSocketDebuggerUrl).toMatch(
        new RegExp(`^ws://${debuggerAddress.address}/devtools/browser/`),
      );
      const pp = await puppeteer.connect({
        browserURL: `http://${debuggerAddress.address}`,
        defaultViewport: null,
      });
      const [page] = await pp.pages();
      await page!.goto(`${pages.origin}/`);
      expect(await page!.title()).toBe('Local test page');
      await pp.disconnect();
    } finally {
      await debuggerAddress.close();
    }
  });

  it('refuses a wrong or missing token with 401 without echoing it', async () => {
    const wrong = 'tok_wrong_secret_value';
    const refused = await tryUpgrade(server.proxy.cdpUrl(browser.sessionId, wrong));
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toEqual({ error: expect.any(String) });
    expect(refused.body).not.toContain(wrong);
    expect(refused.body).not.toContain(token);

    const missing = await tryUpgrade(`${server.origin}/cdp/${browser.sessionId}`);
    expect(missing.status).toBe(401);

    const json = await fetch(
      `${server.origin}/cdp/${browser.sessionId}/json/version?token=${wrong}`,
    );
    expect(json.status).toBe(401);
    expect(await json.text()).not.toContain(wrong);
  });

  it('answers 404 for a session that is not running', async () => {
    const refused = await tryUpgrade(server.proxy.cdpUrl(randomUUID(), 'tok_whatever'));
    expect(refused.status).toBe(404);
    expect(refused.body).not.toContain('tok_whatever');
  });

  it('rewrites /json/version and /json/list to point at the proxy, never at Chromium', async () => {
    const base = `${server.origin}/cdp/${browser.sessionId}`;
    const version = await (await fetch(`${base}/json/version?token=${token}`)).json();
    expect(version.webSocketDebuggerUrl).toBe(server.proxy.cdpUrl(browser.sessionId, token));

    const listText = await (await fetch(`${base}/json/list?token=${token}`)).text();
    expect(listText).not.toContain(`:${(browser.chromiumAddress as { port: number }).port}/`);
    const list = JSON.parse(listText) as Array<{ type: string; webSocketDebuggerUrl: string }>;
    const page = list.find((t) => t.type === 'page')!;
    expect(page.webSocketDebuggerUrl).toMatch(
      new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/cdp/${browser.sessionId}/devtools/page/\\w+\\?token=`),
    );
    // A page socket through the proxy speaks CDP.
    const pp = await puppeteer.connect({ browserWSEndpoint: version.webSocketDebuggerUrl });
    expect((await pp.version()).length).toBeGreaterThan(0);
    await pp.disconnect();
  });

  it('closes proxied connections when the session browser stops', async () => {
    const other = await runtime.launch({ sessionId: randomUUID(), record: false });
    const otherToken = server.admit(other);
    const pp = await puppeteer.connect({
      browserWSEndpoint: server.proxy.cdpUrl(other.sessionId, otherToken),
      defaultViewport: null,
    });
    const disconnected = new Promise<void>((resolve) => pp.once('disconnected', () => resolve()));
    await other.stop();
    await disconnected;
    expect((await tryUpgrade(server.proxy.cdpUrl(other.sessionId, otherToken))).status).toBe(404);
  });
});
