/**
 * One P9 download in a fresh process, on the built package (dist/) under plain `node`. Side A:
 * Playwright's `download.saveAs()` on a remote browser of `launchRemote()` (the bytes come over
 * CDP through the download bridge). Side B: a raw CDP stream read of the same response on a
 * bare `connectOverCDP` browser: `Fetch.takeResponseBodyAsStream` + `IO.read` into a file, the
 * least any CDP client can do. Prints `{ ms, peakMb, sha256 }`.
 * Usage: node bench/remote-download-child.mjs '<job as JSON>'
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { BrowserApi } from '../dist/index.js';
import { launchRemote } from '../dist/playwright.js';
import { timeAndPeakRss } from './peak-rss.mjs';

const MB = 1024 * 1024;
/** @type {{ side: 'a' | 'b', url: string, token: string, proxyPassword: string, page: string, file: string, dir: string }} */
const job = JSON.parse(process.argv[2] ?? '{}');
const api = new BrowserApi({
  baseUrl: job.url,
  token: job.token,
  proxyPassword: job.proxyPassword,
});
const target = join(job.dir, `p9-${job.side}.bin`);

let browser;
let run;
if (job.side === 'a') {
  browser = await launchRemote({ api });
  const page = browser.contexts()[0].pages()[0];
  await page.goto(job.page);
  run = async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#attachment'),
    ]);
    await download.saveAs(target);
  };
} else {
  const session = await api.sessions.create({});
  browser = await chromium.connectOverCDP(session.cdp_url);
  browser.close = ((close) => async () => {
    await close.call(browser);
    await api.sessions.end(session.id);
  })(browser.close);
  const page = browser.contexts()[0].pages()[0];
  await page.goto(job.page);
  const cdp = await browser.newBrowserCDPSession();
  await cdp.send('Fetch.enable', {
    patterns: [{ urlPattern: job.file, requestStage: 'Response' }],
  });
  run = () =>
    new Promise((resolve, reject) => {
      cdp.on('Fetch.requestPaused', async (event) => {
        try {
          const { stream } = await cdp.send('Fetch.takeResponseBodyAsStream', {
            requestId: event.requestId,
          });
          const file = await open(target, 'w');
          for (;;) {
            const chunk = await cdp.send('IO.read', { handle: stream, size: MB });
            await file.write(Buffer.from(chunk.data, chunk.base64Encoded ? 'base64' : 'utf8'));
            if (chunk.eof) break;
          }
          await file.close();
          await cdp.send('Fetch.failRequest', {
            requestId: event.requestId,
            errorReason: 'Aborted',
          });
          resolve();
        } catch (error) {
          reject(error);
        }
      });
      page.click('#attachment').catch(reject);
    });
}

await new Promise((resolve) => setTimeout(resolve, 1000));
const { ms, peakMb } = await timeAndPeakRss(run);
const hash = createHash('sha256');
for await (const chunk of createReadStream(target)) hash.update(chunk);
await rm(target, { force: true });
await browser.close();
await api.close();
process.stdout.write(`${JSON.stringify({ ms, peakMb, sha256: hash.digest('hex') })}\n`);
process.stderr.write(
  `  P9 ${job.side} ${job.file}: ${Math.round(ms)} ms, +${peakMb.toFixed(1)} MB\n`,
);
process.exit(0);
