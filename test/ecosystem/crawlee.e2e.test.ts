/**
 * Crawlee, unmodified, with the drop-ins as its launcher: every page crawled, one session per
 * browser Crawlee opens (counted at the launcher), each one deleted (not timed out), never more
 * running than the account allows, none running after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, PlaywrightCrawler } from '@crawlee/playwright';
import { PuppeteerCrawler } from '@crawlee/puppeteer';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { chromium } from '../../src/playwright/index.js';
import { puppeteer } from '../../src/puppeteer/index.js';
import { SessionWatcher } from '../fixture/inline-suite.js';
import { eventually } from '../helpers/pages.js';
import { type CrawlSite, startCrawlSite } from './crawl-site.js';

// PuppeteerCrawler's useIncognitoPages path runs `await import('puppeteer')` (Crawlee's peer
// dependency, which a PuppeteerCrawler user has installed) to pick the context method; without
// it every newPage() fails and nothing is crawled. This repo installs puppeteer-core only, so
// resolve `puppeteer` to it, as `npm i puppeteer@npm:puppeteer-core` does in a user's project.
try {
  createRequire(createRequire(import.meta.url).resolve('@crawlee/browser-pool')).resolve(
    'puppeteer',
  );
} catch {
  const hook = 'export const resolve=(s,c,n)=>n(s==="puppeteer"?"puppeteer-core":s,c)';
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}

let emu: EmulatorHandle;
let site: CrawlSite;
let scratch: string;
const endReasons = new Map<string, string>();
const savedEnv = { ...process.env };

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'rb-crawlee-'));
  process.env.REMOTE_BROWSER_CACHE_DIR = join(scratch, 'ledger');
  process.env.CRAWLEE_STORAGE_DIR = join(scratch, 'storage');
  emu = await startEmulator({
    // No recordings: a crawl makes a session per browser, and closing the emulator would wait
    // for every one of them to be encoded.
    ffmpegPath: false,
    logger: (_level, message) => {
      const ended = /^session (\S+) ended \((\w+)\)/.exec(message);
      if (ended) endReasons.set(ended[1]!, ended[2]!);
    },
  });
  site = await startCrawlSite(6);
});

afterAll(async () => {
  await eventually(
    async () => (await emu.admin.state()).runningSessions === 0,
    20_000,
    'zero running sessions',
  );
  await site?.close();
  await emu?.close();
  process.env = savedEnv;
  rmSync(scratch, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A fresh account whose credentials the drop-in reads from the environment, as a user's would be. */
async function account(concurrentSessions: number): Promise<BrowserApi> {
  const created = await emu.admin.createAccount({ limits: { concurrentSessions } });
  process.env.REMOTE_BROWSER_URL = emu.browserUrl;
  process.env.REMOTE_BROWSER_TOKEN = created.token;
  process.env.REMOTE_BROWSER_PROXY_PASSWORD = created.proxyPassword;
  return new BrowserApi({
    baseUrl: emu.browserUrl,
    token: created.token,
    proxyPassword: created.proxyPassword,
  });
}

interface Crawl {
  titles: string[];
  finished: number;
  failed: number;
}

type Case = { useIncognitoPages?: boolean; retireAfter?: number; maxConcurrency?: number };

const EXPECTED_TITLES = ['Item 1', 'Item 2', 'Item 3', 'Item 4', 'Item 5', 'Item 6', 'Shop'];

async function checkSessions(api: BrowserApi, launches: number, limit: number, peak: number) {
  const sessions = await api.sessions.list();
  // One session per browser Crawlee opened, and no other.
  expect(sessions).toHaveLength(launches);
  await eventually(
    () => sessions.every((s) => endReasons.has(s.id)),
    90_000,
    'every session of the crawl to end',
  );
  expect(sessions.map((s) => endReasons.get(s.id))).toEqual(sessions.map(() => 'deleted'));
  expect(peak).toBeLessThanOrEqual(limit);
  expect((await emu.admin.state()).runningSessions).toBe(0);
  await api.close();
}

async function crawlWithPlaywright(c: Case): Promise<Crawl> {
  const titles: string[] = [];
  const crawler = new PlaywrightCrawler(
    {
      launchContext: {
        launcher: chromium,
        ...(c.useIncognitoPages ? { useIncognitoPages: true } : {}),
      },
      ...(c.maxConcurrency ? { maxConcurrency: c.maxConcurrency } : {}),
      ...(c.retireAfter
        ? { browserPoolOptions: { retireBrowserAfterPageCount: c.retireAfter } }
        : {}),
      async requestHandler({ page, enqueueLinks }) {
        titles.push(await page.title());
        await enqueueLinks();
      },
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  const stats = await crawler.run([site.urls[0]!]);
  return { titles: titles.sort(), finished: stats.requestsFinished, failed: stats.requestsFailed };
}

async function crawlWithPuppeteer(c: Case): Promise<Crawl> {
  const titles: string[] = [];
  const crawler = new PuppeteerCrawler(
    {
      launchContext: {
        launcher: puppeteer,
        ...(c.useIncognitoPages ? { useIncognitoPages: true } : {}),
      },
      ...(c.maxConcurrency ? { maxConcurrency: c.maxConcurrency } : {}),
      ...(c.retireAfter
        ? { browserPoolOptions: { retireBrowserAfterPageCount: c.retireAfter } }
        : {}),
      async requestHandler({ page, enqueueLinks }) {
        titles.push(await page.title());
        await enqueueLinks();
      },
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  const stats = await crawler.run([site.urls[0]!]);
  return { titles: titles.sort(), finished: stats.requestsFinished, failed: stats.requestsFailed };
}

const CASES: [string, Case, number][] = [
  ['defaults', {}, 2],
  ['useIncognitoPages', { useIncognitoPages: true }, 2],
  [
    'retireBrowserAfterPageCount 2, maxConcurrency 4 over a limit of 2',
    { retireAfter: 2, maxConcurrency: 4 },
    2,
  ],
];

describe('PlaywrightCrawler with launcher: chromium from remote-browser/playwright', () => {
  it.each(CASES)('crawls every page (%s)', { timeout: 400_000 }, async (_name, c, limit) => {
    const api = await account(limit);
    const launch = vi.spyOn(chromium, 'launch');
    const persistent = vi.spyOn(chromium, 'launchPersistentContext');
    const watcher = new SessionWatcher(api).start();
    const crawl = await crawlWithPlaywright(c);
    await watcher.stop();
    expect(crawl).toEqual({ titles: EXPECTED_TITLES, finished: 7, failed: 0 });
    await checkSessions(
      api,
      launch.mock.calls.length + persistent.mock.calls.length,
      limit,
      watcher.peak,
    );
    if (c.retireAfter) expect(persistent.mock.calls.length).toBeGreaterThanOrEqual(4);
  });
});

describe('PuppeteerCrawler with launcher: puppeteer from remote-browser/puppeteer', () => {
  it.each(CASES)('crawls every page (%s)', { timeout: 400_000 }, async (_name, c, limit) => {
    const api = await account(limit);
    const launch = vi.spyOn(puppeteer, 'launch');
    const watcher = new SessionWatcher(api).start();
    const crawl = await crawlWithPuppeteer(c);
    await watcher.stop();
    expect(crawl).toEqual({ titles: EXPECTED_TITLES, finished: 7, failed: 0 });
    await checkSessions(api, launch.mock.calls.length, limit, watcher.peak);
    if (c.retireAfter) expect(launch.mock.calls.length).toBeGreaterThanOrEqual(4);
  });
});
