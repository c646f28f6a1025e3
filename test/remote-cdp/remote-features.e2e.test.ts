/**
 * openRemoteFeatures() on a real Chromium behind the emulator (remote isolation): the remote
 * features run on a CDP connection of their own to the session's cdp_url, opened alongside the
 * library's connect; the browser adopts them, and they end with it.
 */
import { once } from 'node:events';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { startDefaultContextGeo } from '../../src/playwright/geo.js';
import { launchRemote } from '../../src/playwright/index.js';
import { CdpClosedError } from '../../src/remote-cdp/cdp-connection.js';
import { openRemoteFeatures, remoteCdpFor } from '../../src/remote-cdp/remote-features.js';
import { startDevServer } from '../helpers/dev-server.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { startGeoSite } from '../helpers/geo-site.js';
import { eventually } from '../helpers/pages.js';
import { useCapturedWarnings } from '../helpers/warnings.js';

const env = useEmulatorAndSite({ ffmpegPath: false, isolation: 'remote' });
let api: BrowserApi;

beforeAll(async () => {
  api = await env.newAccountApi();
});
afterAll(async () => {
  await api?.close();
});

const warnings = useCapturedWarnings();

/**
 * A WebSocket relay in front of one `cdp_url`: the features' connection goes through it, the
 * library's does not, so cutting its sockets drops the features' connection alone. `delayMs`
 * holds each message that long each way: the features' connection as far away as a real network.
 */
async function startRelay(cdpUrl: string, delayMs = 0) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const sockets = new Set<WebSocket>();
  let accepted = 0;
  server.on('connection', (client) => {
    accepted++;
    const up = new WebSocket(cdpUrl, { perMessageDeflate: false, maxPayload: 0 });
    const early: string[] = [];
    for (const socket of [client, up]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.terminate();
        up.terminate();
      });
    }
    // One delay for every message keeps their order.
    const later = (send: () => void) => (delayMs > 0 ? setTimeout(send, delayMs) : send());
    client.on('message', (data) =>
      later(() => {
        if (up.readyState === WebSocket.OPEN) up.send(String(data));
        else early.push(String(data));
      }),
    );
    up.on('open', () => {
      for (const message of early.splice(0)) up.send(message);
    });
    up.on('message', (data) =>
      later(() => {
        if (client.readyState === WebSocket.OPEN) client.send(String(data));
      }),
    );
  });
  const url = new URL(cdpUrl);
  url.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: url.href,
    get accepted() {
      return accepted;
    },
    /** Drops every connection through it; `refuse` also stops it taking new ones. */
    cut(refuse = false) {
      if (refuse) server.close();
      for (const socket of sockets) socket.terminate();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

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

  it('reopens a features connection that dropped alone: the dev server is served through the client again', async () => {
    const session = await api.sessions.create({});
    const relay = await startRelay(session.cdp_url as string);
    const dev = await startDevServer();
    const features = openRemoteFeatures(relay.url, {});
    const browser = await chromium.connectOverCDP(session.cdp_url as string);
    try {
      await features.ready();
      features.adopt(browser);
      const page = browser.contexts()[0]?.pages()[0];
      if (!page) throw new Error('the session has no tab');
      await page.goto(`${dev.origin}/`);
      expect(await page.locator('h1').textContent()).toBe('Dev');

      relay.cut();
      await eventually(() => relay.accepted >= 2, 10_000, 'a second connection through the relay');
      // Served from the client again, as the user's next goto expects (it may race the reopen's
      // setup by a round trip, so it is tried until the tunnel answers).
      const before = dev.requests.length;
      await eventually(
        async () => {
          const served = await page.goto(`${dev.origin}/`).then(
            (r) => r?.ok() === true,
            () => false,
          );
          return served && (await page.locator('h1').textContent()) === 'Dev';
        },
        10_000,
        'the dev server served again',
      );
      expect(dev.requests.slice(before).every((r) => r.fromClient)).toBe(true);
      // A drop after adopt() is the reopen's: lost stays pending.
      const lostSettled = await Promise.race([
        features.lost.then(
          () => true,
          () => true,
        ),
        new Promise<boolean>((r) => setImmediate(() => r(false))),
      ]);
      expect(lostSettled).toBe(false);
      expect(warnings).toEqual([]);
      expect(browser.isConnected()).toBe(true);
    } finally {
      await browser.close();
      await features.close();
      await relay.close();
      await dev.close();
      await api.sessions.end(session.id);
    }
  });

  it("holds the tab's new workers for geo's overrides again once a dropped features connection reopened", async () => {
    const site = await startGeoSite();
    await env.emu.admin.publish('geo.test', site.origin);
    const session = await api.sessions.create({});
    // Playwright, close by, resumes a new worker long before a session of ours, 40 ms away each
    // way, could attach to it and send its overrides: only a hold keeps the worker waiting.
    const relay = await startRelay(session.cdp_url as string, 40);
    const features = openRemoteFeatures(relay.url, {});
    const browser = await chromium.connectOverCDP(session.cdp_url as string);
    try {
      await features.ready();
      features.adopt(browser);
      await startDefaultContextGeo(remoteCdpFor(browser, noOpen), {
        config: Promise.resolve({}),
        option: { timezoneId: 'Asia/Tokyo', locale: 'ja-JP' },
      });
      const page = browser.contexts()[0]?.pages()[0];
      if (!page) throw new Error('the session has no tab');
      const language = () => page.evaluate(() => navigator.language);
      // A new dedicated worker's language as its first script reads it: set on the worker's own
      // session (its zone it shares with the page's renderer).
      const workerLanguage = () =>
        page.evaluate(
          () =>
            new Promise<string>((resolve) => {
              new Worker('/worker.js').onmessage = (e) => resolve(e.data.language);
            }),
        );
      await page.goto('https://geo.test/');
      expect(await workerLanguage()).toBe('ja-JP');

      relay.cut();
      await eventually(() => relay.accepted >= 2, 10_000, 'a second connection through the relay');
      // The tab has its overrides again once the reopened connection attached to it...
      await eventually(async () => (await language()) === 'ja-JP', 10_000, "the tab's language");
      // ...and a worker it starts now is held until it has its own.
      expect(await workerLanguage()).toBe('ja-JP');
      expect(browser.isConnected()).toBe(true);
    } finally {
      await browser.close();
      await features.close();
      await relay.close();
      await site.close();
      await api.sessions.end(session.id);
    }
  });

  it('rejects lost when its connection drops before a browser adopts it: the connect beside it is tried again', async () => {
    const session = await api.sessions.create({});
    const relay = await startRelay(session.cdp_url as string);
    const features = openRemoteFeatures(relay.url, {});
    try {
      await features.ready();
      relay.cut();
      await expect(features.lost).rejects.toThrow("the remote features' CDP connection dropped");
      // Not adopted, nothing reopens it.
      await new Promise((r) => setTimeout(r, 500));
      expect(relay.accepted).toBe(1);
    } finally {
      await features.close();
      await relay.close();
      await api.sessions.end(session.id);
    }
  });

  it('says once what stopped when a dropped features connection cannot reopen, and the browser stays', async () => {
    const session = await api.sessions.create({});
    const relay = await startRelay(session.cdp_url as string);
    const features = openRemoteFeatures(relay.url, {});
    const browser = await chromium.connectOverCDP(session.cdp_url as string);
    try {
      await features.ready();
      features.adopt(browser);
      relay.cut(true);
      await eventually(() => warnings.length > 0, 15_000, 'the warning');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.code).toBe('REMOTE_BROWSER_FEATURES_LOST');
      expect(warnings[0]?.message).toMatch(/could not be reopened.*exposeNetwork/);
      expect(warnings[0]?.message).not.toContain(
        new URL(session.cdp_url as string).search.slice(1),
      );
      expect(browser.isConnected()).toBe(true);
      const page = browser.contexts()[0]?.pages()[0];
      expect(await page?.evaluate(() => 1 + 1)).toBe(2);
    } finally {
      await browser.close();
      await features.close();
      await api.sessions.end(session.id);
    }
  });
});
