/**
 * openRemoteFeatures() on a real Chromium behind the emulator (remote isolation): the remote
 * features run on a CDP connection of their own to the session's cdp_url, opened alongside the
 * library's connect; the browser adopts them, and they end with it.
 */
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { launchRemote } from '../../src/playwright/index.js';
import { CdpClosedError } from '../../src/remote-cdp/cdp-connection.js';
import { remoteCdpFor } from '../../src/remote-cdp/remote-cdp.js';
import { openRemoteFeatures } from '../../src/remote-cdp/remote-features.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';

const env = useEmulatorAndSite({ ffmpegPath: false, isolation: 'remote' });
let api: BrowserApi;

beforeAll(async () => {
  api = await env.newAccountApi();
});
afterAll(async () => {
  await api?.close();
});

const noOpen = async () => {
  throw new Error('remoteCdpFor opened a session of its own');
};

describe('openRemoteFeatures', () => {
  it("is the launched browser's RemoteCdp, on a connection of its own that ends with the browser", async () => {
    const browser = await launchRemote({ api });
    const cdp = await remoteCdpFor(browser, noOpen);
    // Its own connection: the session's own tab is known to it, and it answers.
    expect([...cdp.targets.values()].some((t) => t.type === 'page')).toBe(true);
    await expect(cdp.send('Browser.getVersion')).resolves.toHaveProperty('product');
    await browser.close();
    await expect(cdp.send('Browser.getVersion')).rejects.toBeInstanceOf(CdpClosedError);
  });

  it('starts before the library connects, and a browser that adopts it shares it', async () => {
    const { id, cdpUrl } = await api.sessions.create({}).then((s) => ({
      id: s.id,
      cdpUrl: s.cdp_url as string,
    }));
    const features = openRemoteFeatures(cdpUrl, { exposeNetwork: '' });
    const browser = await chromium.connectOverCDP(cdpUrl);
    try {
      await features.ready();
      features.adopt(browser);
      const cdp = await remoteCdpFor(browser, noOpen);
      expect([...cdp.targets.values()].some((t) => t.type === 'page')).toBe(true);
      // The browser's disconnect ends the features and their connection.
      await browser.close();
      await expect(cdp.send('Browser.getVersion')).rejects.toBeInstanceOf(CdpClosedError);
    } finally {
      await features.close();
      await api.sessions.end(id);
    }
  });

  it('a cdp_url the service refuses rejects ready() without naming its token, and close() is safe', async () => {
    const session = await api.sessions.create({});
    const refused = (session.cdp_url as string).replace(/token=[^&]+/, 'token=not-the-secret-42');
    try {
      const features = openRemoteFeatures(refused, {});
      const error = await features.ready().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(CdpClosedError);
      expect(error?.message).toMatch(/401/);
      expect(error?.message).not.toContain('not-the-secret-42');
      await features.close();
      await features.close();
    } finally {
      await api.sessions.end(session.id);
    }
  });
});
