/**
 * P9: a download of a remote browser brought to the client. A site on the emulator's internet
 * (the browser is `isolation: 'remote'`, so nothing reaches the client but over CDP) serves an
 * attachment of 50 MB and of 200 MB; each measurement runs in a fresh process on the built
 * package (bench/remote-download-child.mjs). A: Playwright's `download.saveAs()` through the
 * download bridge; B: a raw CDP stream read of the same response. Goals: bytes identical; A's
 * time ≤ 1.5× B's (200 MB); A's RSS growth ≤ 64 MB and the same (± 8 MB) at 50 and 200 MB.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { median } from './stats.js';
import type { Row } from './table.js';

const MB = 1024 * 1024;
const RUNS = Number(process.env.P9_RUNS ?? 3);

/** The attachment's bytes, chunk by chunk: a 1 MB block stamped with its index (not dedupable). */
function* chunks(size: number): Generator<Buffer> {
  const block = Buffer.alloc(MB);
  for (let i = 0; i < MB; i++) block[i] = (i * 2654435761) >>> 24;
  for (let at = 0, n = 0; at < size; at += MB, n++) {
    const chunk = Buffer.from(block.subarray(0, Math.min(MB, size - at)));
    chunk.writeUInt32LE(n, 0);
    yield chunk;
  }
}

function sha(size: number): string {
  const hash = createHash('sha256');
  for (const chunk of chunks(size)) hash.update(chunk);
  return hash.digest('hex');
}

async function startSite(): Promise<Server> {
  const server = createServer(async (req, res) => {
    const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('mb') ?? 0) * MB;
    if (req.url?.startsWith('/file.bin')) {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="big.bin"',
        'content-length': String(size),
      });
      for (const chunk of chunks(size)) if (!res.write(chunk)) await once(res, 'drain');
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<a id="attachment" href="/file.bin?mb=${size / MB}">file</a>`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function startEmulatorChild(origin: string) {
  const script = fileURLToPath(new URL('./emulator-child.ts', import.meta.url));
  const options = { ffmpegPath: false, isolation: 'remote', internet: { 'files.test': origin } };
  const child = spawn(process.execPath, [...process.execArgv, script, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return {
    ...(JSON.parse(line) as { url: string; token: string; proxyPassword: string }),
    stop: async () => {
      const exited = once(child, 'exit');
      child.stdin!.end();
      await exited;
    },
  };
}

async function once_(job: Record<string, unknown>) {
  const script = fileURLToPath(new URL('./remote-download-child.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, JSON.stringify(job)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  await once(child, 'exit');
  return JSON.parse(line) as { ms: number; peakMb: number; sha256: string };
}

export async function remoteDownloadRows(): Promise<Row[]> {
  await access(fileURLToPath(new URL('../dist/playwright.js', import.meta.url))).catch(() => {
    throw new Error(
      'P9 measures the built package: run `npm run build` first (npm run bench does)',
    );
  });
  const site = await startSite();
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const emu = await startEmulatorChild(origin);
  const dir = await mkdtemp(join(tmpdir(), 'remote-browser-p9-'));
  try {
    const measure = async (mb: number, side: 'a' | 'b') => {
      const runs = [];
      for (let i = 0; i < RUNS; i++) {
        const run = await once_({
          ...emu,
          side,
          dir,
          page: `http://files.test/?mb=${mb}`,
          file: `http://files.test/file.bin?mb=${mb}`,
        });
        if (run.sha256 !== sha(mb * MB)) throw new Error(`P9 side ${side}, ${mb} MB: bytes differ`);
        runs.push(run);
      }
      return { ms: median(runs.map((r) => r.ms)), peakMb: Math.max(...runs.map((r) => r.peakMb)) };
    };
    const a50 = await measure(50, 'a');
    const a200 = await measure(200, 'a');
    const b200 = await measure(200, 'b');
    const ratio = a200.ms / b200.ms;
    return [
      {
        id: 'P9',
        what: 'download.saveAs() of 200 MB from a remote browser: time vs a raw CDP stream read',
        goal: '≤ 1.5×, bytes identical',
        measured: `${ratio.toFixed(2)}× (${(a200.ms / 1000).toFixed(1)} s vs ${(b200.ms / 1000).toFixed(1)} s, median of ${RUNS}); sha256 identical`,
        met: ratio <= 1.5,
      },
      {
        id: 'P9',
        what: 'download.saveAs(): client RSS growth at 50 and 200 MB',
        goal: '≤ 64 MB, equal ± 8 MB',
        // The raw read's growth is the floor: V8 collects the base64 chunks' strings late.
        measured: `${a50.peakMb.toFixed(1)} MB at 50 MB, ${a200.peakMb.toFixed(1)} MB at 200 MB (worst of ${RUNS}; the raw CDP read of 200 MB: ${b200.peakMb.toFixed(1)} MB)`,
        met: a200.peakMb <= 64 && Math.abs(a200.peakMb - a50.peakMb) <= 8,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
    await emu.stop();
    await new Promise<void>((resolve) => {
      site.closeAllConnections();
      site.close(() => resolve());
    });
  }
}
