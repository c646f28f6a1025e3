/**
 * P5: downloading a 200 MB recording the emulator serves (a synthetic one, through its admin
 * API). A: `api.sessions.recordings.download(sessionId, { dir })`; B: a raw stream copy of the same
 * signed URL (undici `request` piped to a file). Goals: A's peak RSS increase ≤ 32 MB, A's
 * throughput ≥ 0.8× B's. The emulator runs in a child process so its buffers are not counted.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { createAdminClient } from '../src/emulator/admin-client.js';
import { BrowserApi } from '../src/index.js';
import { describeRatio, median, type Paired } from './stats.js';
import type { Row } from './table.js';

const SIZE = 200 * 1024 * 1024;
const PAIRS = 3;
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

/** Runs `fn`, sampling RSS every few ms; returns its duration and the peak RSS above the start. */
async function withPeakRss(fn: () => Promise<void>): Promise<{ ms: number; peakMb: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const t0 = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - t0;
  peak = Math.max(peak, process.memoryUsage.rss());
  return { ms, peakMb: (peak - base) / MB };
}

export async function downloadRows(): Promise<Row[]> {
  const child = await startChild();
  const dir = await mkdtemp(join(tmpdir(), 'remote-browser-bench-'));
  try {
    const { sessionId } = await createAdminClient(child.url).addRecording({ sizeBytes: SIZE });
    const api = new BrowserApi({ baseUrl: child.url, token: child.token });
    const library = async () => {
      const [file] = await api.sessions.recordings.download(sessionId, { dir });
      if (file?.bytes !== SIZE) throw new Error(`library download got ${file?.bytes} bytes`);
      await rm(file.path, { force: true });
    };
    const raw = async () => {
      const [recording] = await api.sessions.recordings.list(sessionId);
      const path = join(dir, 'raw.webm');
      const res = await request(recording!.video_url);
      await pipeline(res.body, createWriteStream(path));
      await rm(path, { force: true });
    };
    await raw(); // warm-up: page cache, JIT
    const speed: Paired = { a: [], b: [], ratios: [] };
    const peaks: number[] = [];
    const rawPeaks: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const order = i % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
      const run: Record<string, { ms: number; peakMb: number }> = {};
      for (const side of order) run[side] = await withPeakRss(side === 'a' ? library : raw);
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
        measured: `${worstPeak.toFixed(1)} MB worst of ${PAIRS} (raw copy: ${Math.max(...rawPeaks).toFixed(1)} MB)`,
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
