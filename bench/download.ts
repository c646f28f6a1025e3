/**
 * P5: downloading a 200 MB recording the emulator serves (a synthetic one, through its admin
 * API), each measurement in a fresh process on the built package (bench/download-child.mjs). A:
 * `api.sessions.recordings.download(sessionId, { dir })`; B: a raw stream copy of the same
 * signed URL (undici `request` piped to a file). Goals: A's peak RSS increase ≤ 32 MB, A's
 * throughput ≥ 0.8× B's. The emulator runs in a child process so its buffers are not counted.
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

const SIZE = 200 * 1024 * 1024;
const PAIRS = 5;
const RSS_GOAL_MB = 32;
const MB = 1024 * 1024;

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

export async function downloadRows(): Promise<Row[]> {
  await access(fileURLToPath(new URL('../dist/index.js', import.meta.url))).catch(() => {
    throw new Error(
      'P5 measures the built package: run `npm run build` first (npm run bench does)',
    );
  });
  const child = await startChild();
  const dir = await mkdtemp(join(tmpdir(), 'remote-browser-bench-'));
  try {
    const { sessionId } = await createAdminClient(child.url).addRecording({ sizeBytes: SIZE });
    const job = { url: child.url, token: child.token, sessionId, dir, sizeBytes: SIZE };
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
      speed.a.push(SIZE / MB / (run.a!.ms / 1000));
      speed.b.push(SIZE / MB / (run.b!.ms / 1000));
      speed.ratios.push(run.b!.ms / run.a!.ms);
      peaks.push(run.a!.peakMb);
      rawPeaks.push(run.b!.peakMb);
    }
    const ratio = median(speed.a) / median(speed.b);
    const worstPeak = Math.max(...peaks);
    return [
      {
        id: 'P5',
        what: 'recordings.download of 200 MB: peak RSS increase',
        goal: `≤ ${RSS_GOAL_MB} MB`,
        // The raw copy's chunks, a new Buffer per socket read, wait for V8 to collect them.
        measured:
          `${worstPeak.toFixed(1)} MB worst of ${PAIRS}, median ${median(peaks).toFixed(1)} ` +
          `(the raw copy: worst ${Math.max(...rawPeaks).toFixed(1)}, median ${median(rawPeaks).toFixed(1)} MB)`,
        met: worstPeak <= RSS_GOAL_MB,
      },
      {
        id: 'P5',
        what: 'recordings.download of 200 MB: throughput vs a raw stream copy of the same URL',
        goal: '≥ 0.8×',
        measured: describeRatio(speed, 'MB/s'),
        met: ratio >= 0.8,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
    await child.stop();
  }
}
