/**
 * Where P10's gap sits: the same interleaved session starts as bench/isolation.ts, each split in
 * two, the create (`POST /sessions` until `running`) and the connect (puppeteer-core on the
 * `cdp_url`, first page listed), isolation 'remote' vs 'none'. Medians of N pairs (default 9):
 *   npx tsx bench/isolation-split.ts        N=15 npx tsx bench/isolation-split.ts
 */
import puppeteer from 'puppeteer-core';
import { type EmulatorHandle, startEmulator } from '../src/emulator/index.js';
import { median } from './stats.js';

async function sessionStart(emu: EmulatorHandle): Promise<{ create: number; connect: number }> {
  const t0 = performance.now();
  const response = await fetch(`${emu.url}/api/v2/browser/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ proxy_password: emu.proxyPassword }),
  });
  const { data } = (await response.json()) as { data: { id: string; cdp_url: string } };
  const t1 = performance.now();
  const browser = await puppeteer.connect({ browserWSEndpoint: data.cdp_url });
  await browser.pages();
  const t2 = performance.now();
  await browser.disconnect();
  await fetch(`${emu.url}/api/v2/browser/sessions/${data.id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${emu.token}` },
  });
  return { create: t1 - t0, connect: t2 - t1 };
}

const remote = await startEmulator({ ffmpegPath: false, isolation: 'remote' });
const none = await startEmulator({ ffmpegPath: false, isolation: 'none' });
try {
  // Warm-up: JIT, Chromium's files in the page cache.
  await sessionStart(remote);
  await sessionStart(none);
  type Split = { create: number; connect: number };
  const runs: Record<'remote' | 'none', Split[]> = { remote: [], none: [] };
  for (let i = 0; i < Number(process.env.N ?? 9); i++) {
    runs.remote.push(await sessionStart(remote));
    runs.none.push(await sessionStart(none));
  }
  for (const [name, list] of Object.entries(runs)) {
    const create = median(list.map((r) => r.create));
    const connect = median(list.map((r) => r.connect));
    console.log(
      `${name.padEnd(6)} create ${create.toFixed(1)} ms, connect ${connect.toFixed(1)} ms, total ${median(list.map((r) => r.create + r.connect)).toFixed(1)} ms`,
    );
  }
} finally {
  await remote.close();
  await none.close();
}
