/**
 * P8: session start on `isolation: 'remote'` (Chromium in its sandbox, behind its exit) against
 * `'none'` (Chromium on this machine), in one run, interleaved: create → raw CDP connected
 * (puppeteer-core on the `cdp_url`, first page listed). Goal: remote ≤ 1.1× none (issue 28).
 */
import puppeteer from 'puppeteer-core';
import { type EmulatorHandle, startEmulator } from '../src/emulator/index.js';
import { describeRatio, interleave, median } from './stats.js';
import type { Row } from './table.js';

const GOAL = 1.1;

async function sessionStart(emu: EmulatorHandle): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(`${emu.url}/api/v2/browser/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ proxy_password: emu.proxyPassword }),
  });
  const { data } = (await response.json()) as { data: { id: string; cdp_url: string } };
  const browser = await puppeteer.connect({ browserWSEndpoint: data.cdp_url });
  await browser.pages();
  const ms = performance.now() - t0;
  await browser.disconnect();
  await fetch(`${emu.url}/api/v2/browser/sessions/${data.id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${emu.token}` },
  });
  return ms;
}

export async function isolationRows(pairs: number): Promise<Row[]> {
  const remote = await startEmulator({ ffmpegPath: false, isolation: 'remote' });
  const none = await startEmulator({ ffmpegPath: false, isolation: 'none' });
  try {
    if (remote.isolation !== 'remote') {
      return [
        {
          id: 'P8',
          what: "session start, isolation 'remote' vs 'none'",
          goal: `≤ ${GOAL}×`,
          measured: "no sandbox here: 'remote' fell back to 'none'",
          met: undefined,
        },
      ];
    }
    // Warm-up: JIT, Chromium's files in the page cache.
    await sessionStart(remote);
    await sessionStart(none);
    const paired = await interleave(
      pairs,
      () => sessionStart(remote),
      () => sessionStart(none),
    );
    const ratio = median(paired.a) / median(paired.b);
    return [
      {
        id: 'P8',
        what: "session start (create → raw CDP connected), isolation 'remote' vs 'none'",
        goal: `≤ ${GOAL}×`,
        measured: describeRatio(paired),
        met: ratio <= GOAL,
      },
    ];
  } finally {
    await remote.close();
    await none.close();
  }
}
