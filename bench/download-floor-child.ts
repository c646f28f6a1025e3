import { BrowserApi } from '../src/index.js';
import { downloadSides } from './download-sides.js';

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
const { library, raw } = downloadSides(api, job.sessionId, job.dir);
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
