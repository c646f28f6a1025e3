import { describe, expect, it } from 'vitest';
import * as playwright from '../../src/playwright/index.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { crawl } from './reconnect-soak.js';

// A cut every 2 s on average, at 50 ms round trip: a network far worse than a real one. 120
// pages take ~12 s, which sees ~6 cuts: each crawl re-attaches several times.
const env = useEmulatorAndSite({
  ffmpegPath: false,
  network: { rttMs: 50, flaky: { meanIntervalMs: 2000 } },
});

// A stuck crawl stops at its 90 s deadline, ends what it launched and waits out the kept
// sessions' window: the test's timeout leaves room for that, so a failure reports, not times out.
describe('reconnect soak', () => {
  it('a crawl of 120 pages by as many workers as the pool and the account allow sessions creates no session beyond the pool size', async () => {
    // The account's plan is the pool: 2 sessions at once, 2 workers. The pool warms 2, the
    // workers take both, a refill meets the limit (429) and warming stops; every cut after that
    // is survived on the same two sessions, or a third would be created once a window passed.
    const poolSize = 2;
    const result = await crawl(playwright, env.emu, env.site, {
      pages: 120,
      workers: poolSize,
      poolSize,
      concurrentSessions: poolSize,
      extra: { reconnectWindowMs: 20_000 },
    });
    console.info(`reconnect soak (pool = account limit): ${JSON.stringify(result)}`);
    expect(result.crawled).toBe(120);
    expect(result.cuts).toBeGreaterThan(0);
    expect(result.sessionsCreated).toBeLessThanOrEqual(poolSize);
    expect(result.poolStats.reattached).toBeGreaterThan(0);
    expect(result.runningAfter).toBe(0);
  }, 240_000);

  it('a pool-driven crawl of 120 pages on a flaky network finishes every page on the sessions it started with', async () => {
    const workers = 2;
    const poolSize = 2;
    const result = await crawl(playwright, env.emu, env.site, {
      pages: 120,
      workers,
      poolSize,
      extra: { reconnectWindowMs: 20_000 },
    });
    console.info(`reconnect soak: ${JSON.stringify(result)}`);
    expect(result.crawled).toBe(120);
    expect(result.cuts).toBeGreaterThan(0);
    // The sessions in use plus the pool's warm ones (a refill per session handed out): a cut
    // never costs a new session.
    expect(result.sessionsCreated).toBeLessThanOrEqual(workers + poolSize);
    expect(result.poolStats.reattached).toBeGreaterThan(0);
    expect(result.runningAfter).toBe(0);
  }, 240_000);
});
