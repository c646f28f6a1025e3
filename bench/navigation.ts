/**
 * P11: what a navigation costs on a `launchRemote()` browser (defaults: exposeNetwork
 * '<loopback>', the download bridge) vs a raw browser of the same emulator that a user would
 * write instead (`POST /sessions` + `connectOverCDP` / `puppeteer.connect`, no feature of this
 * library), at 100 ms RTT (the emulator's network model delays the HTTP API and every CDP frame
 * alike), remote isolation. One page of the emulator's internet: 1 HTML + 10 subresources
 * (5 stylesheets, 5 scripts). Each side loads it in the session's own tab with one
 * `page.goto()`; the pairs alternate which goes first.
 * In `npm run bench` (row P11); alone: npx tsx bench/navigation.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { BrowserApi } from '../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../src/emulator/index.js';
import { launchRemote as launchPlaywright } from '../src/playwright/index.js';
import { launchRemote as launchPuppeteer } from '../src/puppeteer/index.js';
import { describeRatio, interleave, median, type Paired } from './stats.js';
import type { Row } from './table.js';

const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 100);
const PAIRS = Number(process.env.BENCH_NAVIGATION_PAIRS ?? 9);
const URL_ = 'http://news.test/';

/** The page's HTML and its subresources by path (bench/interception-cost.ts serves it too). */
export function asset(path: string): { type: string; body: string } | undefined {
  const range = [0, 1, 2, 3, 4];
  if (path === '/') {
    return {
      type: 'text/html',
      body: `<!doctype html><title>news</title>
${range.map((i) => `<link rel="stylesheet" href="/s${i}.css"><script src="/j${i}.js"></script>`).join('\n')}
<p>news</p>`,
    };
  }
  if (/^\/s\d\.css$/.test(path)) return { type: 'text/css', body: 'p { color: #123; }' };
  if (/^\/j\d\.js$/.test(path))
    return { type: 'text/javascript', body: 'window.n = (window.n || 0) + 1;' };
  return undefined;
}

async function createByHand(emu: EmulatorHandle): Promise<{ id: string; cdp_url: string }> {
  const res = await fetch(`${emu.url}/api/v2/browser/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ proxy_password: emu.proxyPassword }),
  });
  if (!res.ok) throw new Error(`POST /sessions: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { id: string; cdp_url: string } }).data;
}

async function deleteByHand(emu: EmulatorHandle, id: string): Promise<void> {
  const res = await fetch(`${emu.url}/api/v2/browser/sessions/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${emu.token}` },
  });
  await res.arrayBuffer();
}

/** Times one `goto` of the page (every subresource loaded). */
async function timedGoto(goto: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await goto();
  return performance.now() - t0;
}

export async function navigationRows(): Promise<Row[]> {
  const server = createServer((req, res) => {
    const found = asset((req.url ?? '/').split('?')[0] as string);
    if (!found) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': found.type, 'cache-control': 'no-store' }).end(found.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const emu = await startEmulator({
    isolation: 'remote',
    network: { rttMs: RTT_MS },
    internet: { 'news.test': `http://127.0.0.1:${port}` },
    ffmpegPath: false,
  });
  const api = new BrowserApi({
    baseUrl: emu.url,
    token: emu.token,
    proxyPassword: emu.proxyPassword,
  });
  const rows: Row[] = [];
  const raw: string[] = [];
  try {
    {
      const lib = await launchPlaywright({ api, preflight: false });
      const session = await createByHand(emu);
      raw.push(session.id);
      const plain = await chromium.connectOverCDP(session.cdp_url);
      const libPage = lib.contexts()[0]!.pages()[0]!;
      const rawPage = plain.contexts()[0]!.pages()[0]!;
      rows.push(row('Playwright', await pairedGotos(libPage, rawPage)));
      await lib.close();
      await plain.close();
    }
    {
      const lib = await launchPuppeteer({ api, preflight: false });
      const session = await createByHand(emu);
      raw.push(session.id);
      const plain = await puppeteer.connect({
        browserWSEndpoint: session.cdp_url,
        defaultViewport: null,
      });
      const libPage = (await lib.pages())[0]!;
      const rawPage = (await plain.pages())[0]!;
      rows.push(row('Puppeteer', await pairedGotos(libPage, rawPage)));
      await lib.close();
      await plain.disconnect();
    }
  } finally {
    for (const id of raw) await deleteByHand(emu, id).catch(() => {});
    await api.close();
    await emu.close();
    server.closeAllConnections();
    server.close();
  }
  return rows;
}

function row(library: string, paired: Paired): Row {
  const ratio = median(paired.a) / median(paired.b);
  return {
    id: 'P11',
    what: `${library}: page.goto() of an internet page (1 HTML + 10 subresources), launchRemote() defaults vs a raw browser of the same emulator, ${RTT_MS} ms RTT`,
    goal: '≤ 1.03×',
    measured: describeRatio(paired),
    met: ratio <= 1.03,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { renderTable } = await import('./table.js');
  console.log(renderTable(await navigationRows()));
  process.exit(0);
}

/** Both pages load the page once (caches warm alike), then their gotos are timed in pairs. */
async function pairedGotos(
  libPage: { goto(url: string): Promise<unknown> },
  rawPage: { goto(url: string): Promise<unknown> },
) {
  await libPage.goto(URL_);
  await rawPage.goto(URL_);
  return interleave(
    PAIRS,
    () => timedGoto(() => libPage.goto(URL_)),
    () => timedGoto(() => rawPage.goto(URL_)),
  );
}
