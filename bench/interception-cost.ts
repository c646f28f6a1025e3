/**
 * Where a navigation's cost on a remote browser goes (issue 34, docs/remote.md "Cost where it
 * is not used"): one `page.goto()` of an internet page (1 HTML + 10 subresources) on a raw
 * `connectOverCDP` browser, vs the same on a second raw browser of the same emulator whose
 * session another CDP connection changed in ONE way (a variant), side by side at 100 ms RTT on
 * remote isolation. Not a goal row: it shows which CDP state costs what, so P11's figure can be
 * read. Beside the ratio it prints where the page's own Resource Timing puts the difference: the
 * median time the subresources waited between their start and their request being sent
 * (`requestStart - startTime`, inside the browser) and the median time from that request to the
 * end of its response (the network, through the emulator's proxy).
 * Run: npx tsx bench/interception-cost.ts [variant ...] (default: all of VARIANTS)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Page } from 'playwright-core';
import { type EmulatorHandle, startEmulator } from '../src/emulator/index.js';
import { CdpConnection } from '../src/remote-cdp/cdp-connection.js';
import { asset } from './navigation.js';
import { describeRatio, fmt, interleave, median } from './stats.js';

const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 100);
const PAIRS = Number(process.env.BENCH_NAVIGATION_PAIRS ?? 11);
const PAGE = 'http://news.test/';
const LOOPBACK = { urlPattern: 'http*://localhost*', requestStage: 'Request' } as const;

/** What each variant does on the measured session, on a CDP connection of its own. */
const VARIANTS: Record<string, (conn: CdpConnection, pageTarget: string) => Promise<unknown>> = {
  // Nothing: two untouched sessions, the noise floor of the comparison.
  none: async () => {},
  'fetch-loopback': (conn) => conn.send('Fetch.enable', { patterns: [LOOPBACK] }),
  'fetch-no-patterns': (conn) => conn.send('Fetch.enable', { patterns: [] }),
  'fetch-documents-only': (conn) =>
    conn.send('Fetch.enable', { patterns: [{ ...LOOPBACK, resourceType: 'Document' }] }),
  'fetch-on-the-page': async (conn, page) => {
    const { sessionId } = await conn.send('Target.attachToTarget', {
      targetId: page,
      flatten: true,
    });
    await conn.call('Fetch.enable', { patterns: [LOOPBACK] }, { sessionId });
  },
  'isolated-world-script': async (conn, page) => {
    const { sessionId } = await conn.send('Target.attachToTarget', {
      targetId: page,
      flatten: true,
    });
    await conn.call('Page.enable', {}, { sessionId });
    await conn.call(
      'Page.addScriptToEvaluateOnNewDocument',
      { source: 'void 0', worldName: 'bench' },
      { sessionId },
    );
  },
  'discover-targets': (conn) => conn.send('Target.setDiscoverTargets', { discover: true }),
};

interface RawSession {
  id: string;
  page: Page;
  cdpUrl: string;
}

async function rawPage(emu: EmulatorHandle): Promise<RawSession> {
  const res = await fetch(`${emu.url}/api/v2/browser/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ proxy_password: emu.proxyPassword }),
  });
  const { id, cdp_url } = ((await res.json()) as { data: { id: string; cdp_url: string } }).data;
  const page = (await chromium.connectOverCDP(cdp_url)).contexts()[0]?.pages()[0];
  if (!page) throw new Error('the session has no tab');
  return { id, page, cdpUrl: cdp_url };
}

async function end(emu: EmulatorHandle, session: RawSession): Promise<void> {
  await session.page.context().browser()?.close();
  const res = await fetch(`${emu.url}/api/v2/browser/sessions/${session.id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${emu.token}` },
  });
  await res.arrayBuffer();
}

/** Per page: each goto's subresource waits and network times, medians (Resource Timing). */
type Phases = { waited: number[]; network: number[] };
const phases = new Map<Page, Phases>();

const timedGoto = async (page: Page) => {
  const t0 = performance.now();
  await page.goto(PAGE);
  const ms = performance.now() - t0;
  // A string, not a function: tsx's name helper does not exist in the page.
  const entries = (await page.evaluate(`performance.getEntriesByType('resource').map((e) =>
    [e.requestStart - e.startTime, e.responseEnd - e.requestStart])`)) as [number, number][];
  const seen = phases.get(page) ?? { waited: [], network: [] };
  seen.waited.push(median(entries.map(([waited]) => waited)));
  seen.network.push(median(entries.map(([, network]) => network)));
  phases.set(page, seen);
  return ms;
};

/** "waited 52 vs 21 ms, network 21 vs 19 ms": the measured page's medians, then the baseline's. */
function describePhases(measured: Page, baseline: Page): string {
  const of = (page: Page) => phases.get(page) ?? { waited: [], network: [] };
  const [m, b] = [of(measured), of(baseline)];
  return (
    `waited ${fmt(median(m.waited))} vs ${fmt(median(b.waited))} ms, ` +
    `network ${fmt(median(m.network))} vs ${fmt(median(b.network))} ms`
  );
}

const server = createServer((req, res) => {
  const found = asset((req.url ?? '/').split('?')[0] as string);
  if (!found) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': found.type, 'cache-control': 'no-store' }).end(found.body);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const emu = await startEmulator({
  isolation: 'remote',
  network: { rttMs: RTT_MS },
  internet: { 'news.test': `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
  ffmpegPath: false,
});
try {
  const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(VARIANTS);
  console.log(
    `| variant (vs an untouched raw browser, ${RTT_MS} ms RTT) | page.goto() | subresources, in the page (median) |`,
  );
  console.log('|---|---|---|');
  for (const name of chosen) {
    const apply = VARIANTS[name];
    if (!apply) throw new Error(`no variant ${name}: ${Object.keys(VARIANTS).join(', ')}`);
    const baseline = await rawPage(emu);
    const measured = await rawPage(emu);
    const conn = await CdpConnection.open(measured.cdpUrl);
    const { targetInfos } = await conn.send('Target.getTargets');
    const tab = targetInfos.find((t) => t.type === 'page');
    if (!tab) throw new Error('the session has no tab');
    await apply(conn, tab.targetId);
    await timedGoto(measured.page);
    await timedGoto(baseline.page);
    phases.clear();
    const paired = await interleave(
      PAIRS,
      () => timedGoto(measured.page),
      () => timedGoto(baseline.page),
    );
    console.log(
      `| ${name} | ${describeRatio(paired)} | ${describePhases(measured.page, baseline.page)} |`,
    );
    conn.close();
    await Promise.all([end(emu, measured), end(emu, baseline)]);
  }
} finally {
  await emu.close();
  server.close();
}
process.exit(0);
