import { describe, expect, it } from 'vitest';
import { CdpConnection } from '../../src/remote-cdp/cdp-connection.js';
import { applyGeoToTargets, geoCommands, sendGeo } from '../../src/remote-cdp/geo-overrides.js';
import type { ResolvedGeo } from '../../src/remote-cdp/geo-resolve.js';
import { RemoteCdp } from '../../src/remote-cdp/remote-cdp.js';
import { debugLines } from '../helpers/debug-lines.js';
import { FakeBrowser } from '../helpers/fake-cdp-browser.js';

const GEO: ResolvedGeo = {
  timezoneId: 'Europe/Berlin',
  locale: 'de-DE',
  languages: ['de-DE', 'de', 'en'],
  acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8',
  geolocation: { latitude: 52.52, longitude: 13.405, accuracy: 5000 },
  source: { country: 'de' },
};

describe('geoCommands', () => {
  it('sets zone, locale, languages and position on a page', () => {
    expect(geoCommands(GEO, 'page')).toEqual([
      { method: 'Emulation.setTimezoneOverride', params: { timezoneId: 'Europe/Berlin' } },
      { method: 'Emulation.setLocaleOverride', params: { locale: 'de-DE' } },
      {
        method: 'Emulation.setUserAgentOverride',
        params: { userAgent: '', acceptLanguage: 'de-DE,de,en' },
      },
      {
        method: 'Emulation.setGeolocationOverride',
        params: { latitude: 52.52, longitude: 13.405, accuracy: 5000 },
      },
    ]);
  });

  it('gives a worker no position (it has no navigator.geolocation)', () => {
    expect(geoCommands(GEO, 'service_worker').map((c) => c.method)).toEqual([
      'Emulation.setTimezoneOverride',
      'Emulation.setLocaleOverride',
      'Emulation.setUserAgentOverride',
    ]);
  });

  it('leaves the fields the user owns, and targets that run no script', () => {
    const own = new Set(['timezoneId', 'geolocation'] as const);
    expect(geoCommands(GEO, 'page', own).map((c) => c.method)).toEqual([
      'Emulation.setLocaleOverride',
      'Emulation.setUserAgentOverride',
    ]);
    expect(geoCommands(GEO, 'browser')).toEqual([]);
    expect(geoCommands({ source: {} }, 'page')).toEqual([]);
  });
});

describe('sendGeo', () => {
  it('sends every command without waiting in between and says each refusal once', async () => {
    const sent: string[] = [];
    const lines = await debugLines(
      () =>
        sendGeo(
          {
            send: (method) => {
              sent.push(method);
              return method === 'Emulation.setLocaleOverride'
                ? Promise.reject(new Error('Another locale override is already in effect'))
                : Promise.resolve({});
            },
          },
          geoCommands(GEO, 'page'),
        ),
      'remote-browser:geo',
    );
    expect(sent).toHaveLength(4);
    expect(lines).toEqual([
      'remote-browser:geo Emulation.setLocaleOverride refused: Another locale override is already in effect',
    ]);
  });
});

describe('applyGeoToTargets', () => {
  it("holds the own tab's workers on flat sessions of ours: overrides, then the resume; stopping detaches the live ones", async () => {
    const browser = new FakeBrowser();
    browser.answer = (m) =>
      m.method === 'Target.attachToTarget' ? { result: { sessionId: 'TAB' } } : { result: {} };
    const connection = await CdpConnection.open(await browser.listen());
    const cdp = RemoteCdp.open(connection.channel());
    try {
      await cdp.ready();
      const info = { title: '', url: 'about:blank', attached: false, canAccessOpener: false };
      browser.emit('Target.targetCreated', {
        targetInfo: { ...info, targetId: 'T1', type: 'page' },
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      const stop = await applyGeoToTargets(cdp, GEO, { covers: () => true });

      const worker = (sessionId: string, targetId: string) =>
        browser.emit('Target.attachedToTarget', {
          sessionId,
          targetInfo: { ...info, targetId, type: 'worker' },
          waitingForDebugger: true,
        });
      worker('W1', 'K1');
      worker('W2', 'K2');
      await new Promise((resolve) => setTimeout(resolve, 30));
      const on = (sessionId: string) =>
        browser.received.filter((m) => m.sessionId === sessionId).map((m) => m.method);
      expect(on('W1')).toEqual([
        'Emulation.setTimezoneOverride',
        'Emulation.setLocaleOverride',
        'Emulation.setUserAgentOverride',
        'Runtime.runIfWaitingForDebugger',
      ]);
      // W2's worker ends by itself: its session with it.
      browser.emit('Target.detachedFromTarget', { sessionId: 'W2', targetId: 'K2' });
      await new Promise((resolve) => setTimeout(resolve, 30));

      await stop();
      const detached = browser.received
        .filter((m) => m.method === 'Target.detachFromTarget')
        .map((m) => m.params.sessionId);
      expect(detached.sort()).toEqual(['TAB', 'W1']);
    } finally {
      await cdp.close();
      connection.close();
      await browser.close();
    }
  });

  it("holds the own tab's workers again on a reopened connection, once per worker", async () => {
    const browser = new FakeBrowser();
    browser.answer = (m) =>
      m.method === 'Target.attachToTarget' ? { result: { sessionId: 'TAB' } } : { result: {} };
    const url = await browser.listen();
    const connection = await CdpConnection.open(url);
    const cdp = RemoteCdp.open(connection.channel());
    let again: CdpConnection | undefined;
    try {
      await cdp.ready();
      const info = { title: '', url: 'about:blank', attached: false, canAccessOpener: false };
      const tab = { ...info, targetId: 'T1', type: 'page' };
      browser.emit('Target.targetCreated', { targetInfo: tab });
      await new Promise((resolve) => setTimeout(resolve, 30));
      const stop = await applyGeoToTargets(cdp, GEO, { covers: () => true });
      const holds = () =>
        browser.received
          .filter((m) => m.method === 'Target.autoAttachRelated')
          .map((m) => m.params);
      expect(holds()).toEqual([
        expect.objectContaining({ targetId: 'T1', waitForDebuggerOnStart: true }),
      ]);

      // The connection drops; the new one announces the tab again (target discovery's replay).
      again = await CdpConnection.open(url);
      await cdp.reopen(again.channel());
      browser.emit('Target.targetCreated', { targetInfo: tab });
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(holds()).toHaveLength(2);
      expect(holds()[1]).toMatchObject({ targetId: 'T1', waitForDebuggerOnStart: true });

      // A worker the tab starts now is held and given its overrides, by one listener only.
      browser.emit('Target.attachedToTarget', {
        sessionId: 'W3',
        targetInfo: { ...info, targetId: 'K3', type: 'worker' },
        waitingForDebugger: true,
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(browser.received.filter((m) => m.sessionId === 'W3').map((m) => m.method)).toEqual([
        'Emulation.setTimezoneOverride',
        'Emulation.setLocaleOverride',
        'Emulation.setUserAgentOverride',
        'Runtime.runIfWaitingForDebugger',
      ]);
      await stop();
    } finally {
      await cdp.close();
      connection.close();
      again?.close();
      await browser.close();
    }
  });
});
