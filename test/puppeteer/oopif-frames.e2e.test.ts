/**
 * A popup's cross-site (out-of-process) iframe stays usable in Puppeteer (src/puppeteer/oopif-frames.ts)
 * on real Chromium through the emulator's remote isolation. Puppeteer sets a popup's page up only
 * once the popup runs. When the iframe's target is attached before the popup's frame tree has
 * answered, and the iframe's own frame tree answers after the popup's, puppeteer-core leaves the
 * frame on the popup's session and drops every context of the iframe's, so `frame.evaluate()`
 * waits forever. Here two busy main threads make that order, which a loaded machine produces by
 * chance: the popup's, right after its iframe starts loading, and, longer, the iframe site's
 * process (the opener's own frame.test iframe shares it), which answers the iframe's session.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Frame, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { launchRemote } from '../../src/puppeteer/launch-remote.js';

let emu: EmulatorHandle;
let api: BrowserApi;
let server: Server;

const BUSY = 'const until = Date.now() + ms; while (Date.now() < until) {}';

/**
 * `/`: the opener, with a frame.test iframe; `/popup`: a frame.test iframe, then 1.5 s of a busy
 * main thread; `/frame`: the iframe, which can keep its process busy (`busy(ms)`).
 */
function pages(path: string): string | undefined {
  if (path === '/') {
    return '<!doctype html><title>opener</title><iframe src="https://frame.test/frame"></iframe>';
  }
  if (path === '/popup') {
    return `<!doctype html><title>popup</title><iframe src="https://frame.test/frame"></iframe>
<script>const ms = 1500; ${BUSY}</script>`;
  }
  if (path === '/frame') {
    return `<!doctype html><script>window.inFrame = location.host;
window.busy = (ms) => setTimeout(() => { ${BUSY} }, 0);</script>`;
  }
  return undefined;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const body = pages(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html' });
    res.end(body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  emu = await startEmulator({
    ffmpegPath: false,
    internet: { 'opener.test': origin, 'frame.test': origin },
  });
  expect(emu.isolation).toBe('remote');
  api = new BrowserApi({ baseUrl: emu.url, token: emu.token, proxyPassword: emu.proxyPassword });
}, 60_000);

afterAll(async () => {
  await api?.close();
  await emu?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** The page's frame.test iframe, once Puppeteer lists it. */
async function crossSiteFrame(page: Page): Promise<Frame> {
  for (let i = 0; i < 200; i++) {
    const frame = page.frames().find((f) => f.url().startsWith('https://frame.test/'));
    if (frame) return frame;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no frame.test iframe');
}

describe("Puppeteer launchRemote(): a popup's out-of-process iframe", () => {
  it('evaluates in the iframe of each popup the session tab opens', async () => {
    const browser = await launchRemote({ api });
    try {
      const [page] = await browser.pages();
      if (!page) throw new Error('the session has no tab');
      await page.goto('https://opener.test/');
      const own = await crossSiteFrame(page);
      await own.waitForFunction(() => 'busy' in window);
      for (let round = 0; round < 3; round++) {
        await own.evaluate(() => (window as unknown as { busy(ms: number): void }).busy(3000));
        const popupOpened = new Promise<Page | null>((resolve) => page.once('popup', resolve));
        await page.evaluate(() => {
          window.open('/popup');
        });
        const popup = await popupOpened;
        if (!popup) throw new Error('no popup');
        const frame = await crossSiteFrame(popup);
        // Without the repair, the iframe has no context Puppeteer knows of: this waits forever.
        await frame.waitForFunction(() => 'inFrame' in window, { timeout: 15_000 });
        expect({ round, host: await frame.evaluate(() => location.host) }).toEqual({
          round,
          host: 'frame.test',
        });
        await popup.close();
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});
