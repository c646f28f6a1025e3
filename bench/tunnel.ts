/**
 * P8 and P8b: the exposeNetwork tunnel at 50 ms RTT, on the emulator's remote isolation.
 * One page of 1 HTML + 40 subresources in three levels (HTML → 5 CSS + 5 JS; each CSS → 3
 * images; each JS → 3 fetches) is served by one local server, reached two ways: published on
 * the emulator's internet (`shop.test`, the browser fetches it itself) and on the client's
 * loopback through the tunnel.
 * - P8: the tunnel's load within 1.2 × (the internet load + 3 × RTT).
 * - P8b: the internet page on a `launchRemote()` browser with `exposeNetwork` at its default vs
 *   a raw `connectOverCDP` browser of the same emulator (no feature of this library), ≤ 1.03×.
 * In `npm run bench` (rows P8, P8b); alone: npm run build && npx tsx bench/tunnel.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { BrowserApi } from '../src/browser-api/index.js';
import { startEmulator } from '../src/emulator/index.js';
import { launchRemote } from '../src/playwright/index.js';
import { describeRatio, interleave, median } from './stats.js';
import type { Row } from './table.js';

const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 50);
const PAIRS = Number(process.env.BENCH_TUNNEL_PAIRS ?? 7);
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

function page(path: string): { type: string; body: string | Buffer } | undefined {
  const range = [0, 1, 2, 3, 4];
  if (path === '/') {
    return {
      type: 'text/html',
      body: `<!doctype html><title>shop</title><script>window.fetched = 0;</script>
${range.map((i) => `<link rel="stylesheet" href="/s${i}.css"><script src="/j${i}.js"></script>`).join('\n')}
${range.map((i) => [0, 1, 2].map((k) => `<div class="c${i}-${k}">x</div>`).join('')).join('\n')}`,
    };
  }
  let m = /^\/s(\d)\.css$/.exec(path);
  if (m) {
    const rules = [0, 1, 2].map((k) => `.c${m![1]}-${k} { background: url(/i${m![1]}-${k}.png); }`);
    return { type: 'text/css', body: rules.join('\n') };
  }
  m = /^\/j(\d)\.js$/.exec(path);
  if (m) {
    const calls = [0, 1, 2].map((k) => `fetch('/api/${m![1]}-${k}').then(() => window.fetched++);`);
    return { type: 'text/javascript', body: calls.join('\n') };
  }
  if (/^\/i\d-\d\.png$/.test(path)) return { type: 'image/png', body: PNG };
  if (path.startsWith('/api/')) return { type: 'application/json', body: '{"ok":true}' };
  return undefined;
}

async function load(browser: Browser, url: string): Promise<number> {
  const context = browser.contexts()[0]!;
  const tab = await context.newPage();
  try {
    const t0 = performance.now();
    await tab.goto(url, { waitUntil: 'load' });
    await tab.waitForFunction(() => (window as { fetched?: number }).fetched === 15);
    return performance.now() - t0;
  } finally {
    await tab.close();
  }
}

export async function tunnelRows(): Promise<Row[]> {
  const server = createServer((req, res) => {
    const found = page((req.url ?? '/').split('?')[0] as string);
    if (!found) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': found.type, 'cache-control': 'no-store' }).end(found.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const emulator = await startEmulator({
    isolation: 'remote',
    network: { rttMs: RTT_MS },
    internet: { 'shop.test': `http://127.0.0.1:${port}` },
    ffmpegPath: false,
  });
  const api = new BrowserApi({
    baseUrl: emulator.url,
    token: emulator.token,
    proxyPassword: emulator.proxyPassword,
  });
  const on = await launchRemote({ api, preflight: false });
  // What a user writes instead: POST /sessions, then a raw connectOverCDP.
  const created = await api.sessions.create({});
  const off = await chromium.connectOverCDP(created.cdp_url);
  try {
    const internet = 'http://shop.test/';
    const local = `http://localhost:${port}/`;
    // Warm-up: the first load of each way pays connection set-up and Chromium's caches.
    await load(on, internet);
    await load(on, local);
    await load(off, internet);
    const p8 = await interleave(
      PAIRS,
      () => load(on, local),
      () => load(on, internet),
    );
    const budget = 1.2 * (median(p8.b) + 3 * RTT_MS);
    const p8b = await interleave(
      PAIRS,
      () => load(on, internet),
      () => load(off, internet),
    );
    const p8bRatio = median(p8b.a) / median(p8b.b);
    return [
      {
        id: 'P8',
        what: `1 HTML + 40 subresources from the client's loopback through the tunnel vs the same page on the emulator's internet, ${RTT_MS} ms RTT`,
        goal: '≤ 1.2 × (internet + 3 × RTT)',
        measured: `${median(p8.a).toFixed(0)} ms vs budget ${budget.toFixed(0)} ms; ${describeRatio(p8)}`,
        met: median(p8.a) <= budget,
      },
      {
        id: 'P8b',
        what: `the internet page on launchRemote() (exposeNetwork default) vs a raw connectOverCDP browser, ${RTT_MS} ms RTT`,
        goal: '≤ 1.03×',
        measured: describeRatio(p8b),
        met: p8bRatio <= 1.03,
      },
    ];
  } finally {
    await on.close();
    await off.close();
    await api.sessions.end(created.id).catch(() => {});
    await api.close();
    await emulator.close();
    server.closeAllConnections();
    server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { renderTable } = await import('./table.js');
  console.log(renderTable(await tunnelRows()));
}
