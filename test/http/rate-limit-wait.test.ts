/**
 * How long a call waits for a rate-limit slot, and what it says when it stops waiting: a 429's
 * Retry-After without a limiter, bounded by `maxRateLimitWaitMs` or the caller's signal, and one
 * bound over every wait of the same call (a limiter backed off twice by 429s).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AbortError, TimeoutError } from '../../src/http/errors.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { useBrowserTransport } from './transport-harness.js';

const service = useBrowserTransport('rate-limit-wait-token', {
  retry: { baseDelayMs: 10, maxDelayMs: 20 },
});
const { browserTransport } = service;

const REFUSED = 'the service refused the request with 429, so it was not carried out';
const throttled = (seconds: string) =>
  json(429, { error: 'slow down' }, { 'retry-after': seconds });

describe("a 429's Retry-After without a limiter", () => {
  it('is waited out within maxRateLimitWaitMs, also with a caller signal, then the call gives up saying so', async () => {
    service.server.respond(throttled('30'));
    const t = browserTransport({ maxRateLimitWaitMs: 50 });
    const error = await t
      .request({
        method: 'GET',
        path: '/sessions/s1',
        what: 'sessions.get(s1)',
        signal: new AbortController().signal,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(
      `sessions.get(s1): waited for a rate-limit slot for 50 ms (the maxRateLimitWaitMs option) and gave up; ${REFUSED}`,
    );
    expect(service.server.requests).toHaveLength(1);
  });

  it("ends when the caller's signal aborts, with its reason and cause", async () => {
    service.server.respond(throttled('30'));
    const t = browserTransport();
    const controller = new AbortController();
    const calling = t
      .request({
        method: 'GET',
        path: '/sessions/s1',
        what: 'sessions.get(s1)',
        signal: controller.signal,
      })
      .catch((e: unknown) => e);
    await eventually(() => service.server.requests.length === 1, 5000, 'the request');
    const reason = new Error('the user closed the tab');
    controller.abort(reason);
    const error = await calling;
    expect(error).toBeInstanceOf(AbortError);
    expect((error as Error).message).toBe(
      `sessions.get(s1): aborted (the user closed the tab) while it waited for a rate-limit slot; ${REFUSED}`,
    );
    expect((error as Error).cause).toBe(reason);
    expect(service.server.requests).toHaveLength(1);
  });
});

describe('maxRateLimitWaitMs', () => {
  it('bounds every wait of one call together, not each wait on its own', async () => {
    // Two back-offs of 500 ms each: each fits in 800 ms, both together do not.
    service.server.respond(throttled('0.5'), throttled('0.5'), json(200, { data: { id: 's1' } }));
    const limiter = new RateLimiter({ limit: 10 });
    const t = browserTransport({ maxRateLimitWaitMs: 800 });
    const error = await t
      .request({ method: 'GET', path: '/sessions/s1', what: 'sessions.get(s1)', limiter })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(
      `sessions.get(s1): waited for a rate-limit slot for 800 ms (the maxRateLimitWaitMs option) and gave up; ${REFUSED}`,
    );
    // A loaded machine may spend the budget within the first back-off; never a third request.
    expect(service.server.requests.length).toBeLessThan(3);
  });
});

describe('a retry after a 429 with a limiter', () => {
  it('goes ahead of the calls that queued behind it', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    service.server.respond(
      async (req, res) => {
        await answered;
        throttled('0.05')(req, res);
      },
      json(200, { data: { id: 'a' } }),
      json(200, { data: { id: 'b' } }),
    );
    const limiter = new RateLimiter({ limit: 1, windowMs: 100 });
    const t = browserTransport();
    const a = t.request({ method: 'GET', path: '/sessions/a', what: 'sessions.get(a)', limiter });
    await eventually(() => service.server.requests.length === 1, 5000, 'the first request');
    const b = t.request({ method: 'GET', path: '/sessions/b', what: 'sessions.get(b)', limiter });
    // b queues behind a's slot; only then does a get its 429.
    await sleep(50);
    answer();
    await Promise.all([a, b]);
    expect(service.server.requests.map((r) => r.url)).toEqual([
      '/api/v2/browser/sessions/a',
      '/api/v2/browser/sessions/a',
      '/api/v2/browser/sessions/b',
    ]);
  });
});
