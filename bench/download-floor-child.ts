/**
 * One download of bench/download-floor.ts in a fresh process: like download-child.ts, plus the
 * peaks of arrayBuffers (the Buffers' memory outside the JS heap) and heapUsed, and optionally
 * a forced GC every `gcEvery` samples of 5 ms. Prints one JSON line (MB over the base).
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { BrowserApi } from '../src/index.js';

const MB = 1024 * 1024;
const job = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  token: string;
  sessionId: string;
  dir: string;
  side: 'a' | 'b';
  gcEvery: number;
};
const api = new BrowserApi({ baseUrl: job.url, token: job.token });
const library = async () => {
  const [file] = await api.sessions.recordings.download(job.sessionId, { dir: job.dir });
  await rm(file!.path, { force: true });
};
const raw = async () => {
  const [recording] = await api.sessions.recordings.list(job.sessionId);
  const path = join(job.dir, 'raw.webm');
  const res = await request(recording!.video_url);
  await pipeline(res.body, createWriteStream(path));
  await rm(path, { force: true });
};
await api.sessions.recordings.list(job.sessionId);
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const m0 = process.memoryUsage();
let peak = { rss: m0.rss, ab: m0.arrayBuffers, heap: m0.heapUsed, ext: m0.external };
let n = 0;
const timer = setInterval(() => {
  if (job.gcEvery && ++n % job.gcEvery === 0) gc?.();
  const m = process.memoryUsage();
  peak = {
    rss: Math.max(peak.rss, m.rss),
    ab: Math.max(peak.ab, m.arrayBuffers),
    heap: Math.max(peak.heap, m.heapUsed),
    ext: Math.max(peak.ext, m.external),
  };
}, 5);
const t0 = performance.now();
await (job.side === 'a' ? library() : raw());
const ms = performance.now() - t0;
clearInterval(timer);
await api.close();
process.stdout.write(
  `${JSON.stringify({ ms, rss: (peak.rss - m0.rss) / MB, ab: (peak.ab - m0.arrayBuffers) / MB, heap: (peak.heap - m0.heapUsed) / MB, ext: (peak.ext - m0.external) / MB })}\n`,
);
