/**
 * Crawlee, unmodified, with the drop-ins as its launcher: every page crawled, one session per
 * browser Crawlee opens (counted at the launcher), each one deleted (not timed out), never more
 * running than the account allows, none running after. A connection cut mid-crawl fails the
 * pages in flight, Crawlee retries them, and they run on the same session re-attached: no
 * session more than the same crawl without the cut.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, PlaywrightCrawler } from '@crawlee/playwright';
import { PuppeteerCrawler } from '@crawlee/puppeteer';
import type { Browser as PlaywrightBrowser } from 'playwright-core';
import type { Browser as PuppeteerBrowser } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { setDebugSink } from '../../src/http/debug.js';
import { chromium, sessionOf } from '../../src/playwright/index.js';
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

type Case = {
  useIncognitoPages?: boolean;
  retireAfter?: number;
  maxConcurrency?: number;
  /** Runs in the request handler before the page's title is read (a cut mid-crawl). */
  onPage?: (browser: PlaywrightBrowser | PuppeteerBrowser, url: string) => Promise<void>;
};

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
      async requestHandler({ page, enqueueLinks, request }) {
        await c.onPage?.(page.context().browser()!, request.url);
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
      async requestHandler({ page, enqueueLinks, request }) {
        await c.onPage?.(page.browser(), request.url);
        titles.push(await page.title());
        await enqueueLinks();
      },
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  const stats = await crawler.run([site.urls[0]!]);
  return { titles: titles.sort(), finished: stats.requestsFinished, failed: stats.requestsFailed };
}

/**
 * Cuts the client connections of the session crawling `/item/3` the first time it is handled,
 * as a network blip would (the session keeps running), and waits for the browser to see the
 * drop: the handler's next call then fails like one on a crashed local browser.
 */
function cutAtItem3(): { onPage: NonNullable<Case['onPage']>; cut: string[] } {
  const cut: string[] = [];
  return {
    cut,
    async onPage(browser, url) {
      if (cut.length > 0 || !url.endsWith('/item/3')) return;
      const id = sessionOf(browser).id;
      cut.push(id);
      const gone = new Promise<void>((resolve) => browser.once('disconnected', () => resolve()));
      expect(await emu.admin.cutConnections(id)).toMatchObject({ sessions: 1 });
      await gone;
    },
  };
}

/** The drop-ins' debug lines of re-attaches made by a launch, while `run` runs. */
async function reattachesDuring<T>(run: () => Promise<T>): Promise<{ result: T; ids: string[] }> {
  const ids: string[] = [];
  const savedDebug = process.env.DEBUG;
  process.env.DEBUG = 'remote-browser:launch';
  const previous = setDebugSink((line) => {
    const match = /launchRemote: re-attached session (\S+) after its connection dropped/.exec(line);
    if (match) ids.push(match[1]!);
  });
  try {
    return { result: await run(), ids };
  } finally {
    setDebugSink(previous);
    if (savedDebug === undefined) delete process.env.DEBUG;
    else process.env.DEBUG = savedDebug;
  }
}

/**
 * The ERROR lines Crawlee logs (through console.error) from now on: a crawl on a local browser
 * logs none, so a drop-in must not either (a context's close cut off by close() did).
 */
function crawleeErrors(): () => string[] {
  const calls = vi.spyOn(console, 'error').mock.calls;
  return () => calls.map((args) => args.map(String).join(' ')).filter((line) => /ERROR/.test(line));
}

/**
 * The same crawl without and with a cut mid-crawl, each on a fresh account: every page crawled
 * both times, the cut's session re-attached once by the next launch, the same number of
 * sessions created (counted on the emulator), none running after.
 */
async function crawlThroughACut(crawl: (c: Case) => Promise<Crawl>): Promise<void> {
  const created = async (api: BrowserApi) => (await api.sessions.list({ status: 'all' })).length;
  const plain = await account(2);
  expect(await crawl({})).toEqual({ titles: EXPECTED_TITLES, finished: 7, failed: 0 });
  const withoutCut = await created(plain);
  await plain.close();

  const api = await account(2);
  const cut = cutAtItem3();
  const { result, ids } = await reattachesDuring(() => crawl({ onPage: cut.onPage }));
  expect(result).toEqual({ titles: EXPECTED_TITLES, finished: 7, failed: 0 });
  expect(cut.cut).toHaveLength(1);
  expect(ids).toEqual(cut.cut);
  expect(await created(api)).toBe(withoutCut);
  await eventually(
    async () => (await api.sessions.list({ status: 'running' })).length === 0,
    20_000,
    'zero running sessions after the crawl',
  );
  await api.close();
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
    const errors = crawleeErrors();
    const watcher = new SessionWatcher(api).start();
    const crawl = await crawlWithPlaywright(c);
    await watcher.stop();
    expect(crawl).toEqual({ titles: EXPECTED_TITLES, finished: 7, failed: 0 });
    expect(errors()).toEqual([]);
    await checkSessions(
      api,
      launch.mock.calls.length + persistent.mock.calls.length,
      limit,
      watcher.peak,
    );
    if (c.retireAfter) expect(persistent.mock.calls.length).toBeGreaterThanOrEqual(4);
  });

  it('re-attaches the session after a connection cut mid-crawl: every page crawled, no session more than without the cut', {
    timeout: 400_000,
  }, async () => {
    await crawlThroughACut(crawlWithPlaywright);
  });
});

describe('PuppeteerCrawler with launcher: puppeteer from remote-browser/puppeteer', () => {
  it.each(CASES)('crawls every page (%s)', { timeout: 400_000 }, async (_name, c, limit) => {
    const api = await account(limit);
    const launch = vi.spyOn(puppeteer, 'launch');
    const errors = crawleeErrors();
    const watcher = new SessionWatcher(api).start();
    const crawl = await crawlWithPuppeteer(c);
    await watcher.stop();
    expect(crawl).toEqual({ titles: EXPECTED_TITLES, finished: 7, failed: 0 });
    expect(errors()).toEqual([]);
    await checkSessions(api, launch.mock.calls.length, limit, watcher.peak);
    if (c.retireAfter) expect(launch.mock.calls.length).toBeGreaterThanOrEqual(4);
  });

  it('re-attaches the session after a connection cut mid-crawl: every page crawled, no session more than without the cut', {
    timeout: 400_000,
  }, async () => {
    await crawlThroughACut(crawlWithPuppeteer);
  });
});
