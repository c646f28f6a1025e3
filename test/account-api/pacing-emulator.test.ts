/**
 * 1,000 submits from one process against the emulated account service (20 submits per rolling
 * minute, counted when a request arrives), with transit latency of up to 1.5 s. Time is the
 * emulator's clock: the client's limiters read it and wait by advancing it, and the latency is
 * an advance of the same clock between departure and arrival, so 50 minutes of pacing take
 * seconds.
 */
import { Agent, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountApi } from '../../src/account-api/index.js';
import { setDebugSink } from '../../src/http/debug.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { type Harness, startHarness } from '../emulator/account-service/harness.js';

const SUBMITS = 1000;
const WINDOW_MS = 60_000;

/** A seeded sequence in [0, 1): the same latencies on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('AccountApi pacing against the emulated service', () => {
  let harness: Harness;
  let debugLines: string[];
  let restoreSink: (line: string) => void;
  const previousDebug = process.env.DEBUG;

  beforeEach(async () => {
    harness = await startHarness();
    debugLines = [];
    restoreSink = setDebugSink((line) => debugLines.push(line));
    process.env.DEBUG = 'remote-browser:http';
  });
  afterEach(async () => {
    setDebugSink(restoreSink);
    process.env.DEBUG = previousDebug;
    await harness.close();
  });

  it('finishes 1,000 submits with no failure and no 429, never above 20 per rolling minute at the service', async () => {
    const { clock } = harness;
    const account = harness.addAccount({ balance: SUBMITS });
    const now = () => clock.now();
    const sleep = async (ms: number, signal: AbortSignal) => {
      signal.throwIfAborted();
      clock.advance(ms);
    };
    // Latency: each request reaches the service 0–1500 ms (emulator time) after it left.
    const latency = seeded(11);
    const agent = new Agent();
    const dispatcher = agent.compose(
      (dispatch: Dispatcher['dispatch']): Dispatcher['dispatch'] =>
        (options, handler) => {
          clock.advance(Math.round(latency() * 1500));
          return dispatch(options, handler);
        },
    );
    const api = new AccountApi({
      apiKey: account.apiKey,
      baseUrl: harness.origin,
      dispatcher,
      rateLimits: {
        submit: new RateLimiter({ limit: 20, windowMs: WINDOW_MS, now, sleep }),
        read: new RateLimiter({ limit: 100, windowMs: WINDOW_MS, now, sleep }),
      },
    });

    const outcomes = await Promise.allSettled(
      Array.from({ length: SUBMITS }, (_, i) =>
        api.queries.submit({
          questions: [`question ${i}`],
          platforms: ['assistant_a'],
          locations: [{ country: 'us' }],
        }),
      ),
    );
    await api.close();
    await agent.close();

    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    expect(failures).toEqual([]);
    expect(debugLines.filter((l) => l.includes('← 429'))).toEqual([]);
    // Every credit spent once: nothing was charged twice, nothing lost.
    expect(account.balance).toBe(0);

    // When each submit arrived, as the service stamped its rows.
    const arrivals = outcomes
      .map((o) => (o.status === 'fulfilled' ? Date.parse(String(o.value.results[0]?.created)) : 0))
      .sort((a, b) => a - b);
    expect(arrivals).toHaveLength(SUBMITS);
    for (let i = 0; i + 20 < arrivals.length; i++) {
      // The 21st arrival after any arrival is at least one window later.
      expect((arrivals[i + 20] as number) - (arrivals[i] as number)).toBeGreaterThanOrEqual(
        WINDOW_MS,
      );
    }
    // It took the emulated ~50 minutes, not seconds of overlap.
    expect((arrivals.at(-1) as number) - (arrivals[0] as number)).toBeGreaterThanOrEqual(
      (SUBMITS / 20 - 1) * WINDOW_MS,
    );
  });
});
