/**
 * P12: what the usage reporter adds to a Playwright Test run. It is fed as Playwright feeds it:
 * 500 tests ending (each with its session annotation), then the end of the run reading four
 * workers' usage files (500 sessions) and printing the table. The baseline is the same run
 * without the reporter (nothing to do: 0 ms), so the figure is the time it adds. Requests are
 * counted at a loopback server named as both services: the goal is none.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import UsageReporter from '../src/fixture/usage-reporter.js';
import { RUN_DIR_ENV } from '../src/launch/metering.js';
import { fmt } from './stats.js';
import type { Row } from './table.js';

const TESTS = 500;
const WORKERS = 4;
const RUNS = 11;
/** Runs first, not counted: the code's first calls are compiled then. */
const WARM_UP = 3;

function runDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rb-bench-usage-'));
  for (let w = 0; w < WORKERS; w++) {
    const sessions = Array.from({ length: TESTS / WORKERS }, (_, i) => ({
      id: `w${w}-s${i}`,
      source: 'created',
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:01:00.000Z',
      minutes: 1 + (i % 7) / 10,
      estimated: false,
      end: i % 50 === 0 ? 'idle_timeout' : 'closed',
      lostMinutes: i % 50 === 0 ? 10 : 0,
      slotWaitMinutes: 0,
      reattaches: 0,
      pid: 100 + w,
    }));
    const credits = { charged: 0, refunded: 0, net: 0 };
    writeFileSync(
      join(dir, `usage-${100 + w}.json`),
      JSON.stringify({ sessions, totals: { credits }, queries: [] }),
    );
  }
  return dir;
}

export async function usageReporterRows(): Promise<Row[]> {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const before = { ...process.env };
  process.env.REMOTE_BROWSER_URL = origin;
  process.env.REMOTE_BROWSER_ACCOUNT_URL = origin;
  const times: number[] = [];
  try {
    for (let run = 0; run < WARM_UP + RUNS; run++) {
      const dir = runDir();
      process.env[RUN_DIR_ENV] = dir;
      const file = join(dir, '..', `rb-bench-usage-${process.pid}.json`);
      const t0 = performance.now();
      const reporter = new UsageReporter({ write: () => {}, file });
      reporter.onBegin({ projects: [] } as never);
      for (let i = 0; i < TESTS; i++) {
        const w = i % WORKERS;
        reporter.onTestEnd(
          { annotations: [], titlePath: () => ['', 'p', 'a.spec.ts', `test ${i}`] } as never,
          {
            duration: 1000,
            annotations: [
              { type: 'remote-browser:session', description: `w${w}-s${Math.floor(i / WORKERS)}` },
            ],
          } as never,
        );
      }
      reporter.onEnd();
      if (run >= WARM_UP) times.push(performance.now() - t0);
      rmSync(file, { force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    for (const key of ['REMOTE_BROWSER_URL', 'REMOTE_BROWSER_ACCOUNT_URL', RUN_DIR_ENV]) {
      if (before[key] === undefined) delete process.env[key];
      else process.env[key] = before[key];
    }
    server.close();
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  return [
    {
      id: 'P12',
      what: `usage reporter: time added to a run of ${TESTS} tests on ${WORKERS} workers (vs no reporter: 0 ms)`,
      goal: '<= 5 ms per run',
      measured: `${fmt(median)} ms (${fmt((median * 1000) / TESTS)} µs a test; spread ${fmt(sorted[0] as number)}–${fmt(sorted.at(-1) as number)} ms)`,
      met: median <= 5,
    },
    {
      id: 'P12',
      what: 'usage reporter: requests it sends (a loopback server named as both services)',
      goal: '0',
      measured: String(requests),
      met: requests === 0,
    },
  ];
}
