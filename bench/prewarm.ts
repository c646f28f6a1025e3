/**
 * P7: per-test sessions at the price of shared ones. One Playwright Test suite, run three ways
 * against the emulator with a real service's session start (`sessionStartMs` 3000) and a network
 * (`rttMs` 50): worker scope, test scope without pre-warming, test scope with pre-warming. Then
 * short tests with prewarm 1, 2 and 4, to show where depth pays and what it costs in sessions.
 * Prints wall times, the ratio to worker scope, sessions created and the peak alive against the
 * bound workers x (1 + prewarm). Not a test.
 * In `npm run bench` (rows P7); alone: npm run build && npx tsx bench/prewarm.ts
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BrowserApi } from '../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../src/emulator/index.js';
import type { Row } from './table.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'node_modules/@playwright/test/cli.js');
const WORKERS = 2;
const SESSION_START_MS = Number(process.env.BENCH_SESSION_START_MS ?? 3000);
const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 50);

let emulator: EmulatorHandle;
let siteUrl: string;

interface Run {
  label: string;
  wallMs: number;
  created: number;
  peak: number;
  bound: number;
  passed: number;
}

function suite(name: string, tests: number, testMs: number, remote: Record<string, unknown>) {
  const dir = join(ROOT, '.tmp', 'bench-prewarm', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'playwright.config.ts'),
    `import { defineRemoteConfig } from 'remote-browser/test';
export default defineRemoteConfig({
  testDir: '.', outputDir: './test-results', workers: ${WORKERS}, fullyParallel: true, retries: 0,
  reporter: 'dot', use: { remote: ${JSON.stringify({ ...remote, recording: 'off' })} },
});
`,
  );
  writeFileSync(
    join(dir, 'a.spec.ts'),
    `import { expect, test } from 'remote-browser/test';
for (let i = 0; i < ${tests}; i++) {
  test('works ' + i, async ({ page }) => {
    await page.goto(process.env.SITE_URL + '/');
    await expect(page).toHaveTitle('Home');
    await page.waitForTimeout(${testMs});
  });
}
`,
  );
  return dir;
}

async function runOnce(
  label: string,
  tests: number,
  testMs: number,
  remote: Record<string, unknown>,
): Promise<Run> {
  const account = await emulator.admin.createAccount({});
  const api = new BrowserApi({
    baseUrl: emulator.url,
    token: account.token,
    proxyPassword: account.proxyPassword,
  });
  const dir = suite(label.replace(/\W+/g, '-'), tests, testMs, remote);
  let peak = 0;
  let polling = true;
  const watcher = (async () => {
    while (polling) {
      const state = await api.sessions.list({ status: 'running' }).catch(() => []);
      peak = Math.max(peak, state.length);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, {
    REMOTE_BROWSER_URL: emulator.url,
    REMOTE_BROWSER_TOKEN: account.token,
    REMOTE_BROWSER_PROXY_PASSWORD: account.proxyPassword,
    REMOTE_BROWSER_CACHE_DIR: join(dir, 'cache'),
    SITE_URL: siteUrl,
    FORCE_COLOR: '0',
  });
  const t0 = performance.now();
  const { code, output } = await new Promise<{ code: number | null; output: string }>((done) => {
    const child = spawn(process.execPath, [CLI, 'test', '-c', dir], { cwd: ROOT, env });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    child.on('close', (c) => done({ code: c, output: out }));
  });
  const wallMs = performance.now() - t0;
  polling = false;
  await watcher;
  if (code !== 0) throw new Error(`${label}: the suite failed\n${output}`);
  const created = (await api.sessions.list({ status: 'all' })).length;
  await api.close();
  const prewarm =
    remote.sessionScope === 'test' && remote.prewarm !== false ? Number(remote.prewarm ?? 1) : 0;
  const passed = Number(/(\d+) passed/.exec(output)?.[1] ?? 0);
  return { label, wallMs, created, peak, bound: WORKERS * (1 + prewarm), passed };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const describeRun = (r: Run) =>
  `${r.label}: ${seconds(r.wallMs)}, ${r.created} sessions, peak ${r.peak}/${r.bound}`;

/** P7 rows: the goal row for ~3 s tests, and one row per pre-warm depth for short tests. */
export async function prewarmRows(log: (line: string) => void = () => {}): Promise<Row[]> {
  const site = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>Home</title><h1>Home</h1>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  emulator = await startEmulator({
    ffmpegPath: false,
    sessionStartMs: SESSION_START_MS,
    network: { rttMs: RTT_MS },
  });
  const rows: Row[] = [];
  try {
    const long = 12;
    const longMs = SESSION_START_MS;
    const worker = await runOnce('worker scope', long, longMs, { sessionScope: 'worker' });
    log(describeRun(worker));
    const cold = await runOnce('test scope, prewarm off', long, longMs, {
      sessionScope: 'test',
      prewarm: false,
    });
    log(describeRun(cold));
    const warm = await runOnce('test scope, prewarm 1', long, longMs, { sessionScope: 'test' });
    log(describeRun(warm));
    const ratio = warm.wallMs / worker.wallMs;
    rows.push({
      id: 'P7',
      what: `${long} tests of ~${longMs / 1000} s, ${WORKERS} workers, sessionStartMs ${SESSION_START_MS}, rtt ${RTT_MS} ms: test scope + prewarm 1 vs worker scope`,
      goal: '≤ 1.10× worker scope; peak alive ≤ workers × (1 + prewarm)',
      measured: `${ratio.toFixed(2)}× (worker ${seconds(worker.wallMs)}, prewarm ${seconds(warm.wallMs)}, no prewarm ${seconds(cold.wallMs)} = ${(cold.wallMs / worker.wallMs).toFixed(2)}×); ${warm.created} sessions for ${long} tests, peak ${warm.peak}/${warm.bound}`,
      met: ratio <= 1.1 && warm.peak <= warm.bound,
    });

    const short = 12;
    const shortMs = 300;
    const base = await runOnce('worker scope (short)', short, shortMs, { sessionScope: 'worker' });
    log(describeRun(base));
    for (const prewarm of [false, 1, 2, 4] as const) {
      const run = await runOnce(
        `short, prewarm ${prewarm === false ? 'off' : prewarm}`,
        short,
        shortMs,
        {
          sessionScope: 'test',
          prewarm,
        },
      );
      log(describeRun(run));
      rows.push({
        id: 'P7',
        what: `${short} tests of ~${shortMs} ms, test scope, prewarm ${prewarm === false ? 'off' : prewarm}`,
        goal: 'informational: where depth pays; peak ≤ bound',
        measured: `${(run.wallMs / base.wallMs).toFixed(2)}× worker scope (${seconds(run.wallMs)} vs ${seconds(base.wallMs)}); ${run.created} sessions, peak ${run.peak}/${run.bound}`,
        met: run.peak <= run.bound,
      });
    }
  } finally {
    await emulator.close();
    site.close();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { renderTable } = await import('./table.js');
  console.log(renderTable(await prewarmRows((line) => console.error(line))));
}
