import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CdpConnection } from '../../src/remote-cdp/cdp-connection.js';
import { RemoteCdp } from '../../src/remote-cdp/remote-cdp.js';
import { FakeBrowser } from '../helpers/fake-cdp-browser.js';

let browser: FakeBrowser;
let connection: CdpConnection;
let url: string;

beforeEach(async () => {
  browser = new FakeBrowser();
  url = await browser.listen();
  connection = await CdpConnection.open(url);
});
afterEach(async () => {
  connection.close();
  await browser.close();
});

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RemoteCdp', () => {
  it("routes a flat session's events to the session it adopted, and moves that routing on a reopen", async () => {
    const cdp = RemoteCdp.open(connection.channel());
    const session = cdp.adoptFlat('F1', 'P1');
    const seen: unknown[] = [];
    session.on('Page.loadEventFired', (e) => seen.push(e));
    browser.emit('Page.loadEventFired', { timestamp: 1 }, 'F1');
    browser.emit('Page.loadEventFired', { timestamp: 2 }, 'F2');
    await tick();
    expect(seen).toEqual([{ timestamp: 1 }]);
    expect(await session.send('Runtime.evaluate', { expression: '1' })).toEqual({});
    expect(browser.received.at(-1)).toMatchObject({ method: 'Runtime.evaluate', sessionId: 'F1' });

    const again = await CdpConnection.open(url);
    try {
      await cdp.reopen(again.channel());
      expect(session.closedReason?.message).toContain('dropped');
      const next = cdp.adoptFlat('F3', 'P1');
      const later: unknown[] = [];
      next.on('Page.loadEventFired', (e) => later.push(e));
      browser.emit('Page.loadEventFired', { timestamp: 3 }, 'F3');
      await tick();
      expect(later).toEqual([{ timestamp: 3 }]);
    } finally {
      await cdp.close();
      again.close();
    }
  });
});
