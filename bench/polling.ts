/**
 * P4: `queries.wait` on 10 batches at once, through one AccountApi (one shared read limiter).
 * Each batch's row stays pending a different time, 8 to 62 s, so unpaced polling (every 3 s)
 * would send about 120 results calls in the first minute. Goals: never above 100 results calls
 * in any rolling minute at the service; each wait returns within one poll interval of its
 * last row settling. The emulator's delay hook says when each row settles.
 */
import { AccountApi } from '../src/account-api/index.js';
import { startEmulator } from '../src/emulator/index.js';
import { fmt } from './stats.js';
import type { Row } from './table.js';

const BATCHES = 10;
const POLL_INTERVAL_MS = 3000;
const READS_PER_MINUTE = 100;
const pendingMsOf = (batch: number) => 8_000 + 6_000 * batch;

/** The most events inside any window of `windowMs` (each window starting at an event). */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] as number) - (sorted[lo] as number) >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

export async function pollingRows(): Promise<Row[]> {
  const resultsCalls: number[] = [];
  let refused = 0;
  /** Question → the instant (Date.now() ms) its row settles. */
  const settlesAt = new Map<string, number>();
  const emu = await startEmulator({
    ffmpegPath: false,
    account: {
      // Called once per row at submit; the emulator clock runs at real time from 0 offset.
      delay: ({ question }) => {
        const ms = Number(/pending (\d+)/.exec(question)?.[1] ?? 0);
        settlesAt.set(question, Date.now() + ms);
        return ms;
      },
    },
    logger: (_level, message) => {
      if (!/^GET \/api\/v2\/base\/llm\/results\//.test(message)) return;
      resultsCalls.push(Date.now());
      if (message.endsWith('→ 429')) refused++;
    },
  });
  try {
    const api = new AccountApi({ baseUrl: emu.accountUrl, apiKey: emu.apiKey });
    const submitted = [];
    for (let i = 0; i < BATCHES; i++) {
      const question = `bench batch ${i} pending ${pendingMsOf(i)}`;
      const { request_id } = await api.queries.submit({
        questions: [question],
        platforms: ['assistant_a'],
        locations: [{ country: 'us' }],
      });
      submitted.push({ question, requestId: request_id });
    }
    const late = await Promise.all(
      submitted.map(async ({ question, requestId }) => {
        await api.queries.wait(requestId, { intervalMs: POLL_INTERVAL_MS });
        return Date.now() - (settlesAt.get(question) ?? Number.NaN);
      }),
    );
    const peak = maxInWindow(resultsCalls, 60_000);
    // The floor: a wait polls at best every poll interval, and while n waits share 100 reads a
    // minute, every n × 60 s / 100; so batch i (settling while 10 − i waits still run) can be
    // seen up to the longer of the two late.
    const floorMs = (batch: number) =>
      Math.max(POLL_INTERVAL_MS, ((BATCHES - batch) * 60_000) / READS_PER_MINUTE);
    const overFloor = late.map((ms, batch) => ms - floorMs(batch));
    const worst = Math.max(...late);
    const sorted = [...late].sort((a, b) => a - b);
    return [
      {
        id: 'P4',
        what: `queries.wait on ${BATCHES} batches at once (rows pending 8–62 s): results calls in any rolling minute`,
        goal: `≤ ${READS_PER_MINUTE}`,
        measured: `${peak} (of ${resultsCalls.length} in all, ${refused} answered 429)`,
        met: peak <= READS_PER_MINUTE,
      },
      {
        id: 'P4',
        what: `queries.wait on ${BATCHES} batches at once: return after the last row settled`,
        goal: `each ≤ ${POLL_INTERVAL_MS} ms (one poll interval)`,
        measured: `worst ${fmt(worst)} ms, median ${fmt(sorted[Math.floor(sorted.length / 2)] as number)} ms (${late.filter((ms) => ms > POLL_INTERVAL_MS).length} of ${BATCHES} later); floor while 10 waits share 100/min: ${fmt(floorMs(0))} ms, above one poll interval for batches 0–${late.filter((_, batch) => floorMs(batch) > POLL_INTERVAL_MS).length - 1}; worst over its own floor ${fmt(Math.max(...overFloor))} ms (${overFloor.filter((ms) => ms > 0).length} of ${BATCHES} over it)`,
        met: worst <= POLL_INTERVAL_MS,
      },
    ];
  } finally {
    await emu.close();
  }
}
