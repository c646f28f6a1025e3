/**
 * One P5 download in a fresh process (bench/download.ts runs one per measurement): each side
 * starts from the same state, so its peak RSS increase is the download's own and not what an
 * earlier run left in the allocator. Prints one JSON line: `{ ms, peakMb }`.
 * Usage: node --expose-gc --import tsx bench/download-child.ts '<Job as JSON>'
 *   A: `api.sessions.recordings.download(sessionId, { dir })`;
 *   B: a raw stream copy: list, undici `request` of the signed URL piped to a file.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { BrowserApi } from '../src/index.js';

interface Job {
  side: 'a' | 'b';
  url: string;
  token: string;
  sessionId: string;
  dir: string;
  sizeBytes: number;
}

const MB = 1024 * 1024;
const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const api = new BrowserApi({ baseUrl: job.url, token: job.token });

const library = async () => {
  const [file] = await api.sessions.recordings.download(job.sessionId, { dir: job.dir });
  if (file?.bytes !== job.sizeBytes) throw new Error(`library download got ${file?.bytes} bytes`);
  await rm(file.path, { force: true });
};
const raw = async () => {
  const [recording] = await api.sessions.recordings.list(job.sessionId);
  const path = join(job.dir, 'raw.webm');
  const res = await request(recording!.video_url);
  await pipeline(res.body, createWriteStream(path));
  await rm(path, { force: true });
};

// Both sides list once first, so the client, undici and the schemas are loaded before the base.
await api.sessions.recordings.list(job.sessionId);
(globalThis as { gc?: () => void }).gc?.();
const base = process.memoryUsage.rss();
let peak = base;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 5);
const t0 = performance.now();
await (job.side === 'a' ? library() : raw());
const ms = performance.now() - t0;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage.rss());
await api.close();
process.stdout.write(`${JSON.stringify({ ms, peakMb: (peak - base) / MB })}\n`);
