/**
 * One P5 download in a fresh process, on the built package (dist/) under plain `node`: what a
 * user's program runs. Side A: `recordings.download(sessionId, { dir })`. Side B: a raw stream
 * copy, undici `request` of the same signed URL piped to a file. Prints `{ ms, peakMb }`.
 * Usage: node bench/download-child.mjs '<job as JSON>'
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { BrowserApi } from '../dist/index.js';
import { timeAndPeakRss } from './peak-rss.mjs';

/** @type {{ side: 'a' | 'b', url: string, token: string, sessionId: string, dir: string, sizeBytes: number }} */
const job = JSON.parse(process.argv[2] ?? '{}');
const api = new BrowserApi({ baseUrl: job.url, token: job.token });

// Both sides list first, so the client, undici and the schemas are loaded before the base.
const [recording] = await api.sessions.recordings.list(job.sessionId);
if (!recording?.video_url) throw new Error('no recording to download');

const library = async () => {
  const [file] = await api.sessions.recordings.download(job.sessionId, { dir: job.dir });
  if (file?.bytes !== job.sizeBytes) throw new Error(`library download got ${file?.bytes} bytes`);
  await rm(file.path, { force: true });
};
const raw = async () => {
  const path = join(job.dir, 'raw.webm');
  const res = await request(recording.video_url);
  await pipeline(res.body, createWriteStream(path));
  await rm(path, { force: true });
};

// The listing set V8 off compiling undici's HTTP parser (WebAssembly) with its optimizing tier,
// on a background thread: ~20 MB of compiler memory for a few hundred ms (strace -k shows its
// mallocs under wasm::WasmCompilationUnit), a one-time cost of any process that has made a few
// calls. Without this wait it landed inside the measured download, of either side.
await new Promise((resolve) => setTimeout(resolve, 2000));
const { ms, peakMb } = await timeAndPeakRss(() => (job.side === 'a' ? library() : raw()));
await api.close();
process.stdout.write(`${JSON.stringify({ ms, peakMb })}\n`);
