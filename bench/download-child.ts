import { BrowserApi } from '../src/index.js';
import { downloadSides } from './download-sides.js';

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

const sides = downloadSides(api, job.sessionId, job.dir);
const library = async () => {
  const bytes = await sides.library();
  if (bytes !== job.sizeBytes) throw new Error(`library download got ${bytes} bytes`);
};
const { raw } = sides;

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
