/**
 * P7: per-test sessions at the price of shared ones. One Playwright Test suite, run three ways
 * against the emulator with a real service's session start (`sessionStartMs` 3000) and a network
 * (`rttMs` 50): worker scope, test scope without pre-warming, test scope with pre-warming. Then
 * short tests with prewarm 1, 2 and 4, to show where depth pays and what it costs in sessions.
 * Prints wall times, the ratio to worker scope, sessions created and the peak alive against the
 * bound workers x (1 + prewarm). Not a test.
 * Run: npx tsx bench/prewarm.ts   (builds nothing: run `npm run build` first)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { BrowserApi } from '../src/browser-api/index.js';
import { startEmulator } from '../src/emulator/index.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'node_modules/@playwright/test/cli.js');
const WORKERS = 2;
const SESSION_START_MS = Number(process.env.BENCH_SESSION_START_MS ?? 3000);
const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 50);

const site = createServer((_req, res) => {
  res.setHeader('content-type', 'text/html');
  res.end('<!doctype html><title>Home</title><h1>Home</h1>');
});
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
const emulator = await startEmulator({
  ffmpegPath: false,
  sessionStartMs: SESSION_START_MS,
  network: { rttMs: RTT_MS },
});

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

function table(title: string, runs: Run[], base: Run | undefined, goal?: (r: Run) => string) {
  console.log(`\n${title}`);
  console.log(
    '  way                              wall     x worker   created  peak alive / bound  goal',
  );
  for (const r of runs) {
    const ratio = base ? (r.wallMs / base.wallMs).toFixed(2) : '-';
    console.log(
      `  ${r.label.padEnd(32)} ${(r.wallMs / 1000).toFixed(1).padStart(5)} s  ${ratio.padStart(6)}x  ${String(r.created).padStart(7)}  ${String(r.peak).padStart(6)} / ${r.bound}        ${goal?.(r) ?? ''}`,
    );
  }
}

try {
  console.log(
    `P7 pre-warming: ${WORKERS} workers, sessionStartMs ${SESSION_START_MS}, rttMs ${RTT_MS}, Chromium per session`,
  );
  const long = 12;
  const longMs = SESSION_START_MS;
  const worker = await runOnce('worker scope', long, longMs, { sessionScope: 'worker' });
  const cold = await runOnce('test scope, prewarm off', long, longMs, {
    sessionScope: 'test',
    prewarm: false,
  });
  const warm = await runOnce('test scope, prewarm 1 (default)', long, longMs, {
    sessionScope: 'test',
  });
  table(
    `${long} tests of ~${longMs / 1000} s each (about one session start)`,
    [worker, cold, warm],
    worker,
    (r) =>
      r === warm
        ? `<= 1.10x worker: ${r.wallMs / worker.wallMs <= 1.1 ? 'met' : 'MISSED'}; peak <= bound: ${r.peak <= r.bound ? 'met' : 'MISSED'}`
        : '',
  );

  const short = 12;
  const shortMs = 300;
  const shortWorker = await runOnce('worker scope', short, shortMs, { sessionScope: 'worker' });
  const shortRuns = [shortWorker];
  for (const prewarm of [false, 1, 2, 4] as const) {
    shortRuns.push(
      await runOnce(`test scope, prewarm ${prewarm === false ? 'off' : prewarm}`, short, shortMs, {
        sessionScope: 'test',
        prewarm,
      }),
    );
  }
  table(`${short} short tests (~${shortMs} ms each)`, shortRuns, shortWorker, (r) =>
    r.peak <= r.bound ? 'peak within bound' : 'PEAK OVER BOUND',
  );
} finally {
  await emulator.close();
  site.close();
}
