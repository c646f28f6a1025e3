/**
 * Where P2's `close()` (Puppeteer, or Playwright with a third argument) spends its time, next to the floor (one DELETE by hand): a
 * timeline of each close from undici's diagnostics channels, which both the library's undici and
 * Node's fetch publish to. For each close: when the DELETE left (ms after the call), whether a
 * new connection was opened for it, when its answer came, and when the call returned. Whatever
 * lies between "sent" and "answered" is the service's (the emulator ends Chromium before it
 * answers), not the client's. Not a test and not a row of the table.
 * Run: npx tsx bench/close-trace.ts [rttMs=100] [iterations=8] [puppeteer|playwright]
 */
import { subscribe } from 'node:diagnostics_channel';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { startEmulator } from '../src/emulator/index.js';
import { launchRemote as launchPlaywright } from '../src/playwright/index.js';
import { launchRemote as launchPuppeteer } from '../src/puppeteer/index.js';
import { median, quantile } from './stats.js';

const rttMs = Number(process.argv[2] ?? 100);
const iterations = Number(process.argv[3] ?? 8);
const library = process.argv[4] === 'playwright' ? 'playwright' : 'puppeteer';
const API = '/api/v2/browser';

let t0 = 0;
let events: Record<string, number> = {};
const mark = (name: string) => {
  events[name] ??= performance.now() - t0;
};
subscribe('undici:client:beforeConnect', () => mark('new connection'));
subscribe('undici:request:create', (m) => {
  if ((m as { request: { method: string } }).request.method === 'DELETE') mark('sent');
});
subscribe('undici:request:headers', (m) => {
  if ((m as { request: { method: string } }).request.method === 'DELETE') mark('answered');
});

const emu = await startEmulator({ ffmpegPath: false, network: { rttMs } });
const credentials = { baseUrl: emu.url, token: emu.token, proxyPassword: emu.proxyPassword };
const rows: Record<'library' | 'by hand', Array<Record<string, number>>> = {
  library: [],
  'by hand': [],
};

async function traced(side: keyof typeof rows, close: () => Promise<unknown>, record: boolean) {
  const seen: Record<string, number> = {};
  events = seen;
  t0 = performance.now();
  await close();
  mark('returned');
  // Later events (the next launch's connections) are not this close's.
  events = {};
  if (record) rows[side].push(seen);
}

try {
  for (let i = 0; i <= iterations; i++) {
    const record = i > 0; // the first round is a warm-up
    if (library === 'playwright') {
      const browser = await launchPlaywright(credentials);
      browser.contexts()[0]?.pages()[0];
      await traced('library', () => browser.close(), record);
    } else {
      const browser = await launchPuppeteer(credentials);
      await browser.pages();
      await traced('library', () => browser.close(), record);
    }

    const created = await fetch(`${emu.url}${API}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ proxy_password: emu.proxyPassword }),
    });
    const session = ((await created.json()) as { data: { id: string; cdp_url: string } }).data;
    const byHand =
      library === 'playwright'
        ? await chromium.connectOverCDP(session.cdp_url)
        : await puppeteer.connect({ browserWSEndpoint: session.cdp_url, defaultViewport: null });
    if ('contexts' in byHand) byHand.contexts()[0]?.pages()[0];
    else await byHand.pages();
    await traced(
      'by hand',
      async () => {
        const res = await fetch(`${emu.url}${API}/sessions/${session.id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${emu.token}` },
        });
        await res.arrayBuffer();
      },
      record,
    );
    if ('contexts' in byHand) await byHand.close().catch(() => {});
    else await byHand.disconnect();
  }
} finally {
  await emu.close();
}

const at = (list: Array<Record<string, number>>, name: string) =>
  list.map((e) => e[name]).filter((x): x is number => x !== undefined);
console.log(`${library} close() vs one DELETE by hand, ${rttMs} ms RTT, ${iterations} of each`);
for (const [side, list] of Object.entries(rows)) {
  const sent = at(list, 'sent');
  const answered = at(list, 'answered');
  const returned = at(list, 'returned');
  const fresh = at(list, 'new connection').length;
  console.log(
    `  ${side.padEnd(8)} DELETE sent at ${median(sent).toFixed(1)} ms (max ${Math.max(...sent).toFixed(1)}), ` +
      `answered at ${median(answered).toFixed(0)} ms, returned at ${median(returned).toFixed(0)} ms ` +
      `(medians); returned − answered ${median(returned.map((r, i) => r - (answered[i] ?? r))).toFixed(1)} ms; ` +
      `new connections: ${fresh} of ${list.length}`,
  );
  // The service's part (sent → answered: the emulator ends Chromium before it answers) and the
  // client's (before the DELETE leaves, and after its answer), each as p25 / median / p75.
  const service = answered.map((a, i) => a - (sent[i] ?? 0));
  const client = returned.map((r, i) => r - (answered[i] ?? r) + (sent[i] ?? 0));
  const q3 = (xs: number[]) => [0.25, 0.5, 0.75].map((q) => quantile(xs, q).toFixed(1)).join(' / ');
  console.log(
    `           service sent→answered ${q3(service)} ms; client before+after ${q3(client)} ms`,
  );
}
process.exit(0);
