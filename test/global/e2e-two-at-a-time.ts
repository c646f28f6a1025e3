/**
 * Setup file of the e2e project: its files run at most two at a time, and the few listed in
 * e2e-lanes.ts alone (each drives Chromium through the emulator; more at once on a 2-core
 * machine fight for CPU and slow each other past their timeouts), while unit files run beside
 * them (see e2e-sequencer.ts). Vitest has no per-project worker limit, so the e2e files take
 * slots (e2e-slots.ts): taken before the file's own hooks run (after its imports, which so
 * overlap the previous file), released after its last hook, or when its process dies.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { runsAlone } from './e2e-lanes.js';
import { takeSlots } from './e2e-slots.js';

const DIR = resolve(import.meta.dirname, '../../.tmp/e2e-slots');
/** Two files at once: what a 2-core machine (CI's) runs without slowing them past their timeouts. */
export const E2E_SLOTS = 2;
/** A waiting file waits this long at most (a whole e2e run is far shorter). */
const WAIT_LIMIT_MS = 60 * 60_000;

let release: (() => void) | undefined;

beforeAll(async () => {
  const file = expect.getState().testPath;
  if (!file) throw new Error('e2e-two-at-a-time: no test file path to look up in e2e-lanes.ts');
  release = await takeSlots({
    dir: DIR,
    slots: E2E_SLOTS,
    alone: runsAlone(file),
    timeoutMs: WAIT_LIMIT_MS,
  });
  process.once('exit', release);
}, WAIT_LIMIT_MS + 10_000);

afterAll(() => release?.());
