/**
 * Setup file of the e2e project: its files run one at a time (each drives Chromium through the
 * emulator; two at once on a 2-core machine fight for CPU and slow each other past their
 * timeouts), while unit files run beside them in the other worker (see e2e-sequencer.ts).
 * Vitest has no per-project worker limit, so the e2e files take turns through a lock: taken
 * before the file's own hooks run (after its imports, which so overlap the previous file),
 * released after its last hook, or when its process dies.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { lock, unlock } from './file-lock.js';

const LOCK = resolve(import.meta.dirname, '../../.tmp/e2e-one-at-a-time.lock');
/** A waiting file waits this long at most (a whole e2e run is far shorter). */
const WAIT_LIMIT_MS = 60 * 60_000;

const release = () => unlock(LOCK);

beforeAll(async () => {
  await lock(LOCK, WAIT_LIMIT_MS);
  process.once('exit', release);
}, WAIT_LIMIT_MS + 10_000);

afterAll(release);
