/**
 * Puppeteer's `uploadFile()` of one client file to a remote browser (isolation 'remote', the
 * emulator in its own process so its buffers do not count): the time and the client's RSS
 * growth. No raw baseline exists: a raw `DOM.setFileInputFiles` on a remote browser sends a
 * path the browser cannot open. Needs `npm run build`.
 * Usage: node bench/upload-cost.mjs [MB=100] [RTT ms=0]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BrowserApi } from '../dist/index.js';
import { launchRemote } from '../dist/puppeteer.js';
import { timeAndPeakRss } from './peak-rss.mjs';

const [mb, rtt] = [Number(process.argv[2] ?? 100), Number(process.argv[3] ?? 0)];
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    new URL('./emulator-child.ts', import.meta.url).pathname,
    JSON.stringify({ ffmpegPath: false, isolation: 'remote', network: { rttMs: rtt } }),
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const [line] = await once(createInterface({ input: child.stdout }), 'line');
const emu = JSON.parse(line);
const dir = mkdtempSync(join(tmpdir(), 'rb-upload-cost-'));
const file = join(dir, 'upload.bin');
const buf = Buffer.alloc(mb * 1024 * 1024);
for (let i = 0; i < buf.length; i += 4096) buf[i] = i & 255;
writeFileSync(file, buf);
const api = new BrowserApi({
  baseUrl: emu.url,
  token: emu.token,
  proxyPassword: emu.proxyPassword,
});
const browser = await launchRemote({ api });
const page = (await browser.pages())[0];
await page.setContent('<input type=file id=f>');
const input = await page.$('#f');
await new Promise((r) => setTimeout(r, 500));
const { ms, peakMb } = await timeAndPeakRss(() => input.uploadFile(file));
const size = await page.$eval('#f', (el) => el.files[0].size);
console.log(
  JSON.stringify({
    mb,
    rtt,
    ms: Math.round(ms),
    rssMb: +peakMb.toFixed(1),
    ok: size === buf.length,
  }),
);
await browser.close();
await api.close();
child.stdin.end();
await once(child, 'exit');
rmSync(dir, { recursive: true, force: true });
