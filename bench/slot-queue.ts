/**
 * P3: twice the account's concurrent limit launched at once. Limit 5, 10 `launchRemote()`
 * calls at once, each holding its session for a short piece of work; the service takes 2 s to
 * start a session (`sessionStartMs`). Goals: all succeed; create requests ≤ 1.2× the floor
 * (10 creates plus one 429 and one retry for each of the 5 above the limit: 15); wall time
 * ≤ 1.2× two ideal waves, an ideal wave being 5 launches at once on an account of limit 5,
 * measured in the same run, interleaved.
 */
import { startEmulator } from '../src/emulator/index.js';
import { launchRemote } from '../src/playwright/index.js';
import { median, quantile, sleep, timed } from './stats.js';
import type { Row } from './table.js';

const LIMIT = 5;
const LAUNCHES = 2 * LIMIT;
const SESSION_START_MS = 2000;
/** The short piece of work each launch does while it holds its session. */
const WORK_MS = 500;
const ROUNDS = 2;
const CREATE_FLOOR = LAUNCHES + (LAUNCHES - LIMIT);

export async function slotQueueRows(): Promise<Row[]> {
  let creates = 0;
  const emu = await startEmulator({
    ffmpegPath: false,
    sessionStartMs: SESSION_START_MS,
    // Every create request the service sees, answered or refused.
    logger: (_level, message) => {
      if (/^POST \/api\/v2\/browser\/sessions(-async)? → /.test(message)) creates++;
    },
  });
  try {
    const account = await emu.admin.createAccount({ limits: { concurrentSessions: LIMIT } });
    const launchAndWork = async () => {
      const browser = await launchRemote({
        baseUrl: emu.url,
        token: account.token,
        proxyPassword: account.proxyPassword,
      });
      try {
        await browser.contexts()[0]?.pages()[0]?.goto('about:blank');
        await sleep(WORK_MS);
      } finally {
        await browser.close();
      }
    };
    const wave = async (count: number) => {
      creates = 0;
      const { ms, value } = await timed(() =>
        Promise.allSettled(Array.from({ length: count }, launchAndWork)),
      );
      return { ms, failed: value.filter((r) => r.status === 'rejected').length, creates };
    };
    await wave(1); // warm-up: preflight cache, JIT
    const ideal: number[] = [];
    const doubled: number[] = [];
    const createCounts: number[] = [];
    let failed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      ideal.push((await wave(LIMIT)).ms);
      const run = await wave(LAUNCHES);
      doubled.push(run.ms);
      createCounts.push(run.creates);
      failed += run.failed;
    }
    const twoWaves = 2 * median(ideal);
    const wallRatio = median(doubled) / twoWaves;
    const maxCreates = Math.max(...createCounts);
    const spread = (xs: number[]) =>
      `${(quantile(xs, 0) / 1000).toFixed(1)}–${(quantile(xs, 1) / 1000).toFixed(1)} s`;
    const what = `10 launches at once, limit 5, sessionStartMs ${SESSION_START_MS}, ${WORK_MS} ms of work each`;
    return [
      {
        id: 'P3',
        what: `${what}: all succeed`,
        goal: `0 failed of ${ROUNDS * LAUNCHES}`,
        measured: `${failed} failed`,
        met: failed === 0,
      },
      {
        id: 'P3',
        what: `${what}: create requests`,
        goal: `≤ ${(1.2 * CREATE_FLOOR).toFixed(0)} (1.2× the floor of ${CREATE_FLOOR})`,
        measured: `${createCounts.join(', ')} per run (max ${maxCreates}, ${(maxCreates / CREATE_FLOOR).toFixed(2)}× the floor)`,
        met: maxCreates <= 1.2 * CREATE_FLOOR,
      },
      {
        id: 'P3',
        what: `${what}: wall time vs two ideal waves`,
        goal: '≤ 1.2×',
        measured:
          `${wallRatio.toFixed(2)}× (${(median(doubled) / 1000).toFixed(1)} s vs 2 × ${(median(ideal) / 1000).toFixed(1)} s; ` +
          `runs ${spread(doubled)}, waves ${spread(ideal)}, n=${ROUNDS})`,
        met: wallRatio <= 1.2,
      },
    ];
  } finally {
    await emu.close();
  }
}
