/**
 * P5: downloading a recording the emulator serves (a synthetic one, through its admin API), of
 * 200 MB and of 1 GB, each measurement in a fresh process on the built package
 * (bench/download-child.mjs). A: `api.sessions.recordings.download(sessionId, { dir })`; B: a
 * raw stream copy of the same signed URL (undici `request` piped to a file). What a user needs:
 * memory that does not grow with the file (A's median peak RSS increase at 1 GB within 8 MB of
 * its median at 200 MB), at most 64 MB (A's worst), and A's throughput ≥ 0.8× B's at each size.
 * The emulator runs in a child process so its buffers are not counted.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createAdminClient } from '../src/emulator/admin-client.js';
import { describeRatio, median, type Paired } from './stats.js';
import type { Row } from './table.js';

const MB = 1024 * 1024;
const SIZES = [200 * MB, 1024 * MB];
const PAIRS = 3;
const RSS_GOAL_MB = 64;
/** How far apart the two sizes' median peaks may be for memory not to depend on the size. */
const SIZE_SPREAD_MB = 8;

async function startChild(): Promise<{ url: string; token: string; stop: () => Promise<void> }> {
  const script = fileURLToPath(new URL('./emulator-child.ts', import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, script, '{"ffmpegPath":false}'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const handle = JSON.parse(line) as { url: string; token: string };
  return {
    ...handle,
    stop: async () => {
      const exited = once(child, 'exit');
      child.stdin!.end();
      await exited;
    },
  };
}

/**
 * One download in a fresh process (bench/download-child.mjs). In one long-lived process the
 * figure depended on the order of the runs: a run that came after another found the pages the
 * allocator had kept and rose by almost nothing, the first one by +30 MB, and only one side
 * had a warm-up.
 */
async function downloadOnce(job: Record<string, unknown>): Promise<{ ms: number; peakMb: number }> {
  const script = fileURLToPath(new URL('./download-child.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, JSON.stringify(job)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  await once(child, 'exit');
  return JSON.parse(line) as { ms: number; peakMb: number };
}

interface SizeRun {
  size: number;
  speed: Paired;
  peaks: number[];
  rawPeaks: number[];
}

/** `PAIRS` pairs of A and B on one recording of `size` bytes, alternating which runs first. */
async function measureSize(
  child: { url: string; token: string },
  dir: string,
  size: number,
): Promise<SizeRun> {
  const { sessionId } = await createAdminClient(child.url).addRecording({ sizeBytes: size });
  const job = { url: child.url, token: child.token, sessionId, dir, sizeBytes: size };
  const runSide = (side: string) => downloadOnce({ ...job, side });
  await runSide('b'); // warm-up: the page cache of the emulator's file
  const speed: Paired = { a: [], b: [], ratios: [] };
  const peaks: number[] = [];
  const rawPeaks: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const order = i % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
    const run: Record<string, { ms: number; peakMb: number }> = {};
    for (const side of order) run[side] = await runSide(side);
    // Throughput ratio: A's MB/s over B's, i.e. B's time over A's.
    speed.a.push(size / MB / (run.a!.ms / 1000));
    speed.b.push(size / MB / (run.b!.ms / 1000));
    speed.ratios.push(run.b!.ms / run.a!.ms);
    peaks.push(run.a!.peakMb);
    rawPeaks.push(run.b!.peakMb);
  }
  return { size, speed, peaks, rawPeaks };
}

const label = (size: number) => (size >= 1024 * MB ? `${size / 1024 / MB} GB` : `${size / MB} MB`);

export async function downloadRows(): Promise<Row[]> {
  await access(fileURLToPath(new URL('../dist/index.js', import.meta.url))).catch(() => {
    throw new Error(
      'P5 measures the built package: run `npm run build` first (npm run bench does)',
    );
  });
  const child = await startChild();
  const dir = await mkdtemp(join(tmpdir(), 'remote-browser-bench-'));
  try {
    const runs: SizeRun[] = [];
    for (const size of SIZES) runs.push(await measureSize(child, dir, size));
    const worst = Math.max(...runs.flatMap((r) => r.peaks));
    const medians = runs.map((r) => median(r.peaks));
    const spread = Math.max(...medians) - Math.min(...medians);
    const ratios = runs.map((r) => median(r.speed.a) / median(r.speed.b));
    return [
      {
        id: 'P5',
        what: `recordings.download: peak RSS increase at ${runs.map((r) => label(r.size)).join(' and ')}`,
        goal: `≤ ${RSS_GOAL_MB} MB; sizes within ${SIZE_SPREAD_MB} MB`,
        // The raw copy's chunks, a new Buffer per socket read, wait for V8 to collect them.
        measured:
          runs
            .map(
              (r) =>
                `${label(r.size)}: worst ${Math.max(...r.peaks).toFixed(1)}, median ${median(r.peaks).toFixed(1)} MB ` +
                `(raw copy ${median(r.rawPeaks).toFixed(1)})`,
            )
            .join('; ') + `; medians ${spread.toFixed(1)} MB apart`,
        met: worst <= RSS_GOAL_MB && spread <= SIZE_SPREAD_MB,
      },
      {
        id: 'P5',
        what: 'recordings.download: throughput vs a raw stream copy of the same URL',
        goal: '≥ 0.8× at each size',
        measured: runs.map((r) => `${label(r.size)}: ${describeRatio(r.speed, 'MB/s')}`).join('; '),
        met: ratios.every((ratio) => ratio >= 0.8),
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
    await child.stop();
  }
}
