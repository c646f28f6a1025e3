/**
 * Where P10's gap sits: the same interleaved session starts as bench/isolation.ts, each split in
 * two, the create (`POST /sessions` until `running`) and the connect (puppeteer-core on the
 * `cdp_url`, first page listed), isolation 'remote' vs 'none'. Medians of N pairs (default 9):
 *   npx tsx bench/isolation-split.ts        N=15 npx tsx bench/isolation-split.ts
 */
import { startEmulator } from '../src/emulator/index.js';
import { sessionStart } from './isolation.js';
import { median } from './stats.js';

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
