/**
 * P10: session start on `isolation: 'remote'` (Chromium in its sandbox, behind its exit) against
 * `'none'` (Chromium on this machine), in one run, interleaved: create → raw CDP connected
 * (puppeteer-core on the `cdp_url`, first page listed). Goal: remote ≤ 1.1× none (issue 28).
 */
import puppeteer from 'puppeteer-core';
import { type EmulatorHandle, startEmulator } from '../src/emulator/index.js';
import { SPARE_BOOT_DELAY_MS } from '../src/emulator/runtime/sandbox-process.js';
import { describeRatio, interleave, median } from './stats.js';
import type { Row } from './table.js';

const GOAL = 1.1;

/**
 * Every start, on either side, begins on a quiet machine: a second after a start, an emulator on
 * 'remote' boots the next session's sandbox ahead of it (runtime/sandbox-process.ts), and that
 * boot (a Node process, ~0.2 CPU-s here) must not land in the timed start of the other side.
 */
const SETTLE_MS = SPARE_BOOT_DELAY_MS + 1_500;

/**
 * One session start after the machine settled, split: the create (until `running`) and the
 * connect (first page listed).
 */
export async function sessionStart(
  emu: EmulatorHandle,
): Promise<{ create: number; connect: number }> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
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

const total = async (emu: EmulatorHandle) => {
  const { create, connect } = await sessionStart(emu);
  return create + connect;
};

export async function isolationRows(pairs: number): Promise<Row[]> {
  const remote = await startEmulator({ ffmpegPath: false, isolation: 'remote' });
  const none = await startEmulator({ ffmpegPath: false, isolation: 'none' });
  try {
    if (remote.isolation !== 'remote') {
      return [
        {
          id: 'P10',
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
      () => total(remote),
      () => total(none),
    );
    const ratio = median(paired.a) / median(paired.b);
    return [
      {
        id: 'P10',
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
