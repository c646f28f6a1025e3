/**
 * What does going through remote-browser cost over launching Chromium locally?
 * Side by side, in one run, on the same machine and the same Chromium binary:
 *   A. playwright-core `chromium.launch()` of the local binary, new page, close
 *   B. `launchRemote()` through the embedded emulator (HTTP create, preflight off, CDP proxy,
 *      connectOverCDP, then close() = disconnect + DELETE, which kills that Chromium)
 * Prints the median and p90 of each and the ratio B/A. Not a test.
 * Run: npx tsx bench/launch.ts [iterations=8]
 */
import { chromium } from 'playwright-core';
import { startEmulator } from '../src/emulator/index.js';
import { findChromium } from '../src/emulator/runtime/index.js';
import { launchRemote } from '../src/playwright/index.js';

const iterations = Number(process.argv[2] ?? 8);
const executablePath = findChromium();
const emulator = await startEmulator({ ffmpegPath: false });

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return { median: at(0.5), p90: at(0.9) };
}

async function time(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const local: number[] = [];
const remote: number[] = [];
const args = [
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];
try {
  // Warm-up of both paths (disk cache, JIT), not measured.
  await (await chromium.launch({ executablePath, args })).close();
  await (
    await launchRemote({
      baseUrl: emulator.url,
      token: emulator.token,
      proxyPassword: emulator.proxyPassword,
      preflight: false,
    })
  ).close();
  // Interleaved, so drift in machine load hits both sides alike.
  for (let i = 0; i < iterations; i++) {
    local.push(
      await time(async () => {
        const browser = await chromium.launch({ executablePath, args });
        await (await browser.newPage()).goto('about:blank');
        await browser.close();
      }),
    );
    remote.push(
      await time(async () => {
        const browser = await launchRemote({
          baseUrl: emulator.url,
          token: emulator.token,
          proxyPassword: emulator.proxyPassword,
          preflight: false,
        });
        await browser.contexts()[0]!.pages()[0]!.goto('about:blank');
        await browser.close();
      }),
    );
  }
} finally {
  await emulator.close();
}

const a = stats(local);
const b = stats(remote);
console.log(`launch + page + close, ${iterations} interleaved iterations each`);
console.log(
  `  local chromium.launch()       median ${a.median.toFixed(0)} ms   p90 ${a.p90.toFixed(0)} ms`,
);
console.log(
  `  launchRemote() via emulator   median ${b.median.toFixed(0)} ms   p90 ${b.p90.toFixed(0)} ms`,
);
console.log(`  ratio remote/local (median)   ${(b.median / a.median).toFixed(2)}x`);
