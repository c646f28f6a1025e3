/**
 * close() sends the DELETE alongside the disconnect, not after it (issue 14, P2): each library's
 * disconnect is held open here until the service reports the session ended (or 5 s pass, so
 * the old order fails instead of hanging). In the old order the DELETE leaves only after the
 * disconnect, so the held disconnect never sees the session end.
 */
import type { Browser as PlaywrightBrowser } from 'playwright-core';
import type { Browser as PuppeteerBrowser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { launchRemote as launchPlaywright, sessionOf } from '../../src/playwright/index.js';
import { launchRemote as launchPuppeteer } from '../../src/puppeteer/index.js';

let emu: EmulatorHandle;
let api: BrowserApi;

beforeAll(async () => {
  emu = await startEmulator({ ffmpegPath: false });
  api = new BrowserApi({ baseUrl: emu.url, token: emu.token, proxyPassword: emu.proxyPassword });
});
afterAll(async () => {
  await api?.close();
  await emu?.close();
});

/** Resolves 'ended' once the service says the session ended, or 'still running' after 5 s. */
async function endedWhileHeld(id: string): Promise<'ended' | 'still running'> {
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    if ((await api.sessions.retrieve(id)).status === 'ended') return 'ended';
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'still running';
}

describe('close() ends the session alongside the disconnect', () => {
  it('Playwright: the DELETE is answered while the disconnect is still under way', async () => {
    const end = vi.spyOn(api.sessions, 'end');
    // The first browser only lends its prototype: close() is patched there for the second.
    const first = await launchPlaywright({ api, preflight: false });
    await first.close();
    const proto = Object.getPrototypeOf(first) as PlaywrightBrowser;
    const original = proto.close;
    const seen: string[] = [];
    proto.close = async function held(this: PlaywrightBrowser, ...args) {
      seen.push(`during disconnect: ${await endedWhileHeld(sessionOf(this).id)}`);
      return original.apply(this, args);
    };
    try {
      const browser = await launchPlaywright({ api, preflight: false });
      end.mockClear();
      await browser.close();
      expect(seen).toEqual(['during disconnect: ended']);
      expect(end).toHaveBeenCalledTimes(1);
    } finally {
      proto.close = original;
      end.mockRestore();
    }
  });

  it('Puppeteer: the DELETE is answered while the disconnect is still under way', async () => {
    const end = vi.spyOn(api.sessions, 'end');
    const first = await launchPuppeteer({ api, preflight: false });
    await first.close();
    const proto = Object.getPrototypeOf(first) as PuppeteerBrowser;
    const original = proto.disconnect;
    const seen: string[] = [];
    proto.disconnect = async function held(this: PuppeteerBrowser) {
      seen.push(`during disconnect: ${await endedWhileHeld(sessionOf(this as never).id)}`);
      return original.call(this);
    };
    try {
      const browser = await launchPuppeteer({ api, preflight: false });
      end.mockClear();
      await browser.close();
      expect(seen).toEqual(['during disconnect: ended']);
      expect(end).toHaveBeenCalledTimes(1);
    } finally {
      proto.disconnect = original;
      end.mockRestore();
    }
  });
});
