/**
 * The remote-CDP foundation on a real Chromium behind the emulator: the browser-level session
 * follows targets and owns Fetch for every feature that intercepts.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { launchRemote } from '../../src/playwright/index.js';
import { cdpChannel } from '../../src/remote-cdp/cdp-channel.js';
import { type PausedRequest, RemoteCdp } from '../../src/remote-cdp/remote-cdp.js';
import { remoteCdpFor } from '../../src/remote-cdp/remote-features.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { startLoopbackSite } from '../helpers/loopback-site.js';

const env = useEmulatorAndSite({ ffmpegPath: false, isolation: 'remote' });
let api: BrowserApi;
let browser: Browser;
let cdp: RemoteCdp;
let closeSite: () => Promise<void>;

beforeAll(async () => {
  api = await env.newAccountApi();
  const site = await startLoopbackSite({
    '/': '<!doctype html><title>site</title><a id="pop" target="_blank" href="/">pop</a>',
    '/a.txt': 'a',
    '/b.txt': 'b',
  });
  await env.emu.admin.publish('site.test', site.origin);
  browser = await launchRemote({ api, exposeNetwork: '' });
  cdp = RemoteCdp.open(cdpChannel(await browser.newBrowserCDPSession()));
  await cdp.ready();
  closeSite = () => site.close();
});
afterAll(async () => {
  await cdp?.close();
  await browser?.close();
  await closeSite?.();
  await api?.close();
});

async function targetIdOf(page: Page): Promise<string> {
  const session = await page.context().newCDPSession(page);
  const { targetInfo } = await session.send('Target.getTargetInfo');
  await session.detach();
  return targetInfo.targetId;
}

describe('RemoteCdp', () => {
  it('follows pages and popups with their URLs, and forgets them when they close', async () => {
    const page = await browser.contexts()[0]!.newPage();
    await page.goto('http://site.test/');
    const id = await targetIdOf(page);
    await expect.poll(() => cdp.targets.get(id)?.url).toBe('http://site.test/');
    expect(cdp.isPageFrame(id)).toBe(true);
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('#pop')]);
    const popupId = await targetIdOf(popup);
    expect(cdp.targets.get(popupId)?.openerId).toBe(id);
    expect(cdp.isPageFrame('not-a-frame')).toBe(false);
    await popup.close();
    await page.close();
    await expect.poll(() => cdp.targets.has(id) || cdp.targets.has(popupId)).toBe(false);
  });

  it('pauses only what a feature asked for, hands it to each in INTERCEPT_ORDER (not registration order) until one answers, continues the rest', async () => {
    const seen: string[] = [];
    // Registered last-first: the order comes from the roles.
    const answer = cdp.intercept({
      role: 'network-tunnel',
      patterns: [{ urlPattern: 'http://site.test/a.txt', requestStage: 'Request' }],
      onPaused: async (e: PausedRequest) => {
        seen.push(`second ${new URL(e.request.url).pathname}`);
        await cdp.send('Fetch.fulfillRequest', {
          requestId: e.requestId,
          responseCode: 200,
          body: Buffer.from('answered').toString('base64'),
        });
        return true;
      },
    });
    const passOn = cdp.intercept({
      role: 'websocket-bridge',
      patterns: [{ urlPattern: 'http://site.test/*.txt', requestStage: 'Request' }],
      onPaused: async (e: PausedRequest) => {
        seen.push(`first ${new URL(e.request.url).pathname}`);
        return false;
      },
    });
    await cdp.ready();
    const page = await browser.contexts()[0]!.newPage();
    try {
      await page.goto('http://site.test/');
      const text = (path: string) => page.evaluate((p) => fetch(p).then((r) => r.text()), path);
      expect(await text('/a.txt')).toBe('answered');
      expect(await text('/b.txt')).toBe('b');
      expect(seen).toEqual(['first /a.txt', 'second /a.txt', 'first /b.txt']);
      await answer();
      await passOn();
      expect(await text('/a.txt')).toBe('a');
      expect(seen).toHaveLength(3);
    } finally {
      await page.close();
    }
  });

  it('is one instance per browser for every feature that asks', async () => {
    let opens = 0;
    const open = async () => {
      opens++;
      return cdpChannel(await browser.newBrowserCDPSession());
    };
    // The browser's own instance exists already (downloads open it at launch): a fresh owner.
    const owner = {};
    const [a, b] = await Promise.all([remoteCdpFor(owner, open), remoteCdpFor(owner, open)]);
    expect(a).toBe(b);
    expect(opens).toBe(1);
    await a.close();
  });
});
