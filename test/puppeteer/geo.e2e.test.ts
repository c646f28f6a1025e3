/**
 * geo on real Chromium through the emulator's remote isolation with Puppeteer (issue 35): every
 * target gets the exit's values on Puppeteer's own session before its first script, so the page,
 * a cross-site iframe, a popup, a new context's page, a dedicated and a service worker all report
 * them from their first script; `geo: false` leaves the emulator's; `page.emulateTimezone()` wins.
 */
import type { Frame, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { checkGeo } from '../../src/puppeteer/geo.js';
import { launchRemote, type RemoteBrowser } from '../../src/puppeteer/launch-remote.js';
import {
  distanceKm,
  type GeoSite,
  type PageReport,
  type Probe,
  startGeoSite,
} from '../helpers/geo-site.js';

const HOST_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
const ORIGIN = 'https://geo.test';

let emu: EmulatorHandle;
let site: GeoSite;
let api: BrowserApi;

beforeAll(async () => {
  site = await startGeoSite();
  emu = await startEmulator({
    ffmpegPath: false,
    internet: { 'geo.test': site.origin, 'frame.test': site.origin },
  });
  expect(emu.isolation).toBe('remote');
  api = new BrowserApi({ baseUrl: emu.url, token: emu.token, proxyPassword: emu.proxyPassword });
}, 60_000);

afterAll(async () => {
  await api?.close();
  await emu?.close();
  await site?.close();
});

type FullReport = PageReport & { frame: Probe };

async function frameOf(page: Page): Promise<Frame> {
  for (let i = 0; i < 100; i++) {
    const frame = page.frames().find((f) => f.url().startsWith('https://frame.test/'));
    if (frame) {
      await frame.waitForFunction(() => 'firstScript' in window);
      return frame;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no frame.test iframe');
}

async function report(page: Page): Promise<FullReport> {
  const frame = await frameOf(page);
  const all = await page.evaluate(
    () => (window as unknown as { report: Promise<PageReport> }).report,
  );
  const inFrame = await frame.evaluate(
    () => (window as unknown as { firstScript: Probe }).firstScript,
  );
  return { ...all, frame: inFrame };
}

function position(page: Page): Promise<{ latitude: number; longitude: number; error?: string }> {
  return page.evaluate(() =>
    (
      window as unknown as {
        position(): Promise<{ latitude: number; longitude: number; error?: string }>;
      }
    ).position(),
  );
}

interface Want {
  timeZone: string;
  offsets: [number, number];
  locale: string;
  languages: string[];
  acceptLanguage: string;
}

/**
 * Every probe at its first script, and the headers of the page, frame, worker and of a fetch of
 * the page and of the service worker.
 */
function expectEverywhere(r: FullReport, want: Want): void {
  const { acceptLanguage, languages, ...values } = want;
  const probes = { page: r.page, frame: r.frame, worker: r.worker, serviceWorker: r.serviceWorker };
  for (const [where, probe] of Object.entries(probes)) {
    expect({ where, ...probe }).toMatchObject({
      where,
      ...values,
      language: languages[0],
      languages,
    });
  }
  for (const [where, header] of Object.entries({
    page: r.page.acceptLanguage,
    frame: r.frame.acceptLanguage,
    worker: r.worker.acceptLanguage,
    fetched: r.fetched,
    serviceWorkerFetched: r.serviceWorkerFetched,
  })) {
    expect({ where, header }).toEqual({ where, header: acceptLanguage });
  }
}

async function sessionTab(browser: RemoteBrowser): Promise<Page> {
  await browser.defaultBrowserContext().overridePermissions(ORIGIN, ['geolocation']);
  const [page] = await browser.pages();
  if (!page) throw new Error('the session has no tab');
  return page;
}

async function using(
  browser: RemoteBrowser,
  run: (browser: RemoteBrowser) => Promise<void>,
): Promise<void> {
  try {
    await run(browser);
  } finally {
    await browser.close();
  }
}

const BERLIN: Want = {
  timeZone: 'Europe/Berlin',
  offsets: [-60, -120],
  locale: 'de-DE',
  languages: ['de-DE', 'de', 'en'],
  acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8',
};

describe('Puppeteer launchRemote() with geo (the default, exit)', () => {
  it('a session at de/be/berlin reports Berlin in its tab, iframe, workers, popup and a new context', async () => {
    await using(
      await launchRemote({ api, country: 'de', region: 'be', city: 'berlin' }),
      async (browser) => {
        const page = await sessionTab(browser);
        await page.goto(`${ORIGIN}/`);
        expectEverywhere(await report(page), BERLIN);
        expect(
          distanceKm(await position(page), { latitude: 52.52, longitude: 13.405 }),
        ).toBeLessThan(10);
        const check = await checkGeo(page);
        expect(check).toMatchObject({ coherent: true, exitCountry: 'de', mismatches: [] });
        expect(check.items.map((i) => i.status)).toEqual(Array(7).fill('ok'));

        const popupOpened = new Promise<Page | null>((resolve) => page.once('popup', resolve));
        await page.evaluate(() => {
          window.open('/popup');
        });
        const popup = await popupOpened;
        if (!popup) throw new Error('no popup');
        await popup.waitForFunction(() => 'report' in window);
        expectEverywhere(await report(popup), BERLIN);

        const context = await browser.createBrowserContext();
        await context.overridePermissions(ORIGIN, ['geolocation']);
        const fresh = await context.newPage();
        await fresh.goto(`${ORIGIN}/`);
        expectEverywhere(await report(fresh), BERLIN);
        expect(
          distanceKm(await position(fresh), { latitude: 52.52, longitude: 13.405 }),
        ).toBeLessThan(10);
        await context.close();

        // The emulator's exit says where an IP database would place it: the same zone.
        const exit = await (await page.goto('http://exit.test/'))?.json();
        expect(exit).toMatchObject({ country: 'de', city: 'berlin', time_zone: 'Europe/Berlin' });
      },
    );
  }, 180_000);

  it('a session targeted at a region only (us/tx) reports its biggest city, Houston', async () => {
    await using(await launchRemote({ api, country: 'us', region: 'tx' }), async (browser) => {
      const page = await sessionTab(browser);
      await page.goto(`${ORIGIN}/`);
      expectEverywhere(await report(page), {
        timeZone: 'America/Chicago',
        offsets: [360, 300],
        locale: 'en-US',
        languages: ['en-US', 'en'],
        acceptLanguage: 'en-US,en;q=0.9',
      });
      expect(distanceKm(await position(page), { latitude: 29.76, longitude: -95.37 })).toBeLessThan(
        10,
      );
    });
  }, 120_000);

  it('a session on a pinned profile reports where the profile is pinned (jp/27/osaka)', async () => {
    const name = `geo-pinned-pptr-${Date.now()}`;
    const first = await launchRemote({
      api,
      profile: { name, pinIp: true },
      country: 'jp',
      region: '27',
      city: 'osaka',
    });
    await first.close();
    await using(await launchRemote({ api, profile: name }), async (browser) => {
      const page = await sessionTab(browser);
      await page.goto(`${ORIGIN}/`);
      expectEverywhere(await report(page), {
        timeZone: 'Asia/Tokyo',
        offsets: [-540, -540],
        locale: 'ja-JP',
        languages: ['ja-JP', 'ja', 'en'],
        acceptLanguage: 'ja-JP,ja;q=0.9,en;q=0.8',
      });
      expect(distanceKm(await position(page), { latitude: 34.69, longitude: 135.5 })).toBeLessThan(
        10,
      );
    });
    const profile = await api.profiles.findByName(name);
    if (profile) await api.profiles.delete(profile.id);
  }, 180_000);
});

describe('Puppeteer launchRemote() geo variations', () => {
  it('geo: false leaves the browser as the emulator made it', async () => {
    await using(
      await launchRemote({ api, country: 'de', region: 'be', city: 'berlin', geo: false }),
      async (browser) => {
        const page = await sessionTab(browser);
        await page.goto(`${ORIGIN}/`);
        const r = await report(page);
        expect(r.page).toMatchObject({ timeZone: HOST_ZONE, locale: 'en-US', language: 'en-US' });
        expect(r.worker).toMatchObject({ timeZone: HOST_ZONE, language: 'en-US' });
        expect(r.page.acceptLanguage).toMatch(/^en-US/);
        expect(await position(page)).toHaveProperty('error');
        const check = await checkGeo(page);
        expect(check.coherent).toBe(false);
        expect(check.exitCountry).toBe('de');
        expect(check.mismatches.map((line) => line.split(':')[0])).toEqual([
          'timeZone (Intl)',
          'timeZone (Date)',
          'navigator.language',
          'navigator.languages',
          'Accept-Language',
          'Intl locale',
        ]);
        expect(check.mismatches[0]).toBe(
          `timeZone (Intl): ${HOST_ZONE}, the exit's is Europe/Berlin`,
        );
      },
    );
  }, 120_000);

  it("page.emulateTimezone() wins and the exit's locale stays (per field)", async () => {
    await using(
      await launchRemote({ api, country: 'de', region: 'be', city: 'berlin' }),
      async (browser) => {
        const page = await sessionTab(browser);
        await page.emulateTimezone('Asia/Tokyo');
        await page.goto(`${ORIGIN}/`);
        expect((await report(page)).page).toMatchObject({
          timeZone: 'Asia/Tokyo',
          offsets: [-540, -540],
          locale: 'de-DE',
          language: 'de-DE',
        });
      },
    );
  }, 120_000);
});
