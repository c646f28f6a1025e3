/**
 * Transport.request's edges, each pinned by the mutation pass (issue 18): URL building, headers,
 * which statuses and failures are retried and when not, the debug lines, response bodies that
 * are empty, not JSON, not wrapped or too long, and the rate limiter's part in a call.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AbortError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
} from '../../src/http/errors.js';
import type { RateLimiter } from '../../src/http/rate-limiter.js';
import { debugLines } from '../helpers/debug-lines.js';
import { drop, type Handler, json } from '../helpers/http-server.js';
import { useBrowserTransport } from './transport-harness.js';
import { virtualLimiter } from './virtual-limiter.js';

const service = useBrowserTransport('request-edges-token', {
  retry: { baseDelayMs: 1, maxDelayMs: 2 },
});
const { browserTransport } = service;

function textHandler(status: number, body: string): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  };
}

describe('Transport.request edges', () => {
  it('drops trailing slashes of the origin, null and undefined query values, and sends Accept but no body type on a GET', async () => {
    service.server.respond(json(200, { data: 1 }));
    const t = browserTransport({ origin: `${service.server.origin}//` });
    expect(t.origin).toBe(service.server.origin);
    await t.request({
      method: 'GET',
      path: '/x',
      query: { a: null, b: undefined, c: 0 },
      what: 'x',
    });
    const [req] = service.server.requests;
    expect(req?.url).toBe('/api/v2/browser/x?c=0');
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers['content-type']).toBeUndefined();
  });

  it("times out after the transport's own timeout when the call names none", async () => {
    service.server.respond(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 2000));
      res.end(JSON.stringify({ data: 'late' }));
    });
    const err: any = await browserTransport({ timeout: 50 })
      .request({ method: 'GET', path: '/slow', what: 'x' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe('x: timed out after 50 ms');
  });

  it('retries a POST only on a status the service names as unprocessed', async () => {
    const limited = json(429, { error: 'slow down' }, { 'retry-after': '0' });
    service.server.respond(limited, json(200, { data: 'ok' }));
    const post = { method: 'POST', path: '/submit', body: {}, what: 'submit' } as const;
    expect(await browserTransport({ unprocessedStatuses: [429] }).request(post)).toBe('ok');
    expect(service.server.requests).toHaveLength(2);
    service.server.requests.length = 0;
    service.server.respond(limited, json(200, { data: 'ok' }));
    const err = await browserTransport()
      .request(post)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(service.server.requests).toHaveLength(1);
  });

  it('logs each attempt, retry and rate-limited wait on its own line', async () => {
    service.server.respond(
      json(503, { error: 'busy' }, { 'retry-after': '0' }),
      json(429, { error: 'slow' }, { 'retry-after': '0' }),
      json(200, { data: 1 }),
    );
    const started = Date.now();
    const lines = await debugLines(() =>
      browserTransport().request({ method: 'GET', path: '/x', what: 'x' }),
    );
    const elapsed = Date.now() - started;
    const p = 'remote-browser:http';
    const response = (status: number) =>
      expect.stringMatching(new RegExp(`^${p} ← ${status} GET /api/v2/browser/x \\d+ms$`));
    expect(lines).toEqual([
      `${p} → GET /api/v2/browser/x`,
      response(503),
      `${p}   retrying GET /api/v2/browser/x in 0ms`,
      `${p} → GET /api/v2/browser/x (retry 1)`,
      response(429),
      `${p}   rate-limited: GET /api/v2/browser/x again in 0ms`,
      `${p} → GET /api/v2/browser/x (retry 2)`,
      response(200),
    ]);
    // Each response line's duration is one request's: never more than the whole call took.
    for (const line of lines.filter((l) => l.includes('←'))) {
      expect(Number(/(\d+)ms$/.exec(line)?.[1])).toBeLessThanOrEqual(elapsed);
    }
  });

  it('says what failed on a refused connection, in one line with the hint, and logs it', async () => {
    const t = browserTransport({ origin: 'http://127.0.0.1:1', retry: { retries: 0 } });
    let err: any;
    const lines = await debugLines(async () => {
      err = await t
        .request({ method: 'POST', path: '/sessions', body: {}, what: 'sessions.create' })
        .catch((e: any) => e);
    });
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(
      /^sessions\.create: POST \/api\/v2\/browser\/sessions failed without a response: connect ECONNREFUSED 127\.0\.0\.1:1\. nothing is listening at http:\/\/127\.0\.0\.1:1: /,
    );
    expect(lines).toContain(
      'remote-browser:http ✗ POST /api/v2/browser/sessions: connect ECONNREFUSED 127.0.0.1:1',
    );
  });

  it('ends a dropped POST message with the socket reason and the warning, no hint', async () => {
    service.server.respond(drop);
    const err: any = await browserTransport()
      .request({ method: 'POST', path: '/sessions', body: {}, what: 'sessions.create' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(
      /failed without a response: [a-z][^:]*? \(the service may have received the request\)$/,
    );
  });

  it('does not wait for a retry of a failed connection past the deadline', async () => {
    // Full jitter over a 1e9 ms step: the drawn delay is below the 1000 ms timeout only with
    // probability 1e-6; the call must then give up at once rather than sleep into a timeout.
    const t = browserTransport({
      origin: 'http://127.0.0.1:1',
      retry: { retries: 1, baseDelayMs: 1e9, maxDelayMs: 1e9 },
    });
    const err = await t
      .request({ method: 'GET', path: '/x', timeout: 1000, what: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
  });

  it('maps 400 to a BadRequestError and gives the not-the-API hint only on a 404', async () => {
    service.server.respond(json(400, { error: 'bad' }));
    const t = browserTransport();
    const get = { method: 'GET', path: '/x', what: 'x' } as const;
    expect(await t.request(get).catch((e: unknown) => e)).toBeInstanceOf(BadRequestError);
    service.server.respond(textHandler(500, 'boom'));
    const internal: any = await t.request({ ...get, idempotent: false }).catch((e: any) => e);
    expect(internal).toBeInstanceOf(InternalServerError);
    expect(internal.message).not.toContain('does not look like');
    service.server.respond(textHandler(404, '<html>nope</html>'));
    const missing: any = await t.request(get).catch((e: any) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.message).toContain(
      `${service.server.origin}/api/v2/browser does not look like the browser service's API`,
    );
  });

  it('names a 404 on a static route (exact or prefix*) as the wrong URL, even with an API body', async () => {
    service.server.respond(json(404, { error: 'Not found' }));
    const t = browserTransport({ staticRoutes: ['/sessions*', '/health'] });
    const hintOf = async (path: string) => {
      const err: any = await t.request({ method: 'GET', path, what: 'x' }).catch((e: any) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      return err.message.includes('does not look like');
    };
    expect(await hintOf('/sessions/abc')).toBe(true);
    expect(await hintOf('/health')).toBe(true);
    expect(await hintOf('/profiles/abc')).toBe(false);
  });

  it('returns nothing for a 204 and for an empty body, and rejects bodies that are not { data }', async () => {
    const t = browserTransport();
    const get = { method: 'GET', path: '/x', what: 'x' } as const;
    service.server.respond((_req, res) => {
      res.writeHead(204).end();
    });
    expect(await t.request(get)).toBeUndefined();
    service.server.respond(textHandler(200, ''));
    const account = browserTransport({ service: 'account', unwrapData: false });
    expect(await account.request(get)).toBeUndefined();
    for (const body of ['plain text', 'null']) {
      service.server.respond(textHandler(200, body));
      const err: any = await browserTransport()
        .request(get)
        .catch((e: any) => e);
      expect(err).toBeInstanceOf(ResponseValidationError);
      expect(err.message).toBe(
        'x: the response does not match the documented shape: field "data" is missing: success bodies wrap their payload in { data }',
      );
    }
  });

  it("returns the schema's output, and names a nested field by its dotted path", async () => {
    const t = browserTransport();
    const schema = z.object({ a: z.object({ b: z.string() }) });
    service.server.respond(json(200, { data: { a: { b: 'x', extra: 1 }, other: 2 } }));
    expect(await t.request({ method: 'GET', path: '/x', schema, what: 'x' })).toEqual({
      a: { b: 'x' },
    });
    service.server.respond(json(200, { data: { a: { b: 5 } } }));
    const err: any = await t
      .request({ method: 'GET', path: '/x', schema, what: 'x' })
      .catch((e: any) => e);
    expect(err.field).toBe('a.b');
  });

  it('keeps a non-JSON error body as text, cut after 2000 characters', async () => {
    const t = browserTransport({ retry: { retries: 0 } });
    const bodyOf = async (body: string) => {
      service.server.respond(textHandler(500, body));
      const err: any = await t
        .request({ method: 'GET', path: '/x', what: 'x' })
        .catch((e: any) => e);
      expect(err).toBeInstanceOf(InternalServerError);
      return err.body;
    };
    expect(await bodyOf('upstream exploded')).toBe('upstream exploded');
    const exact = 'x'.repeat(2000);
    expect(await bodyOf(exact)).toBe(exact);
    expect(await bodyOf(`${exact}yz`)).toBe(`${exact}…`);
  });
});

describe('Transport.request with a rate limiter', () => {
  it('says nothing was sent when the call is aborted before its slot', async () => {
    const { limiter } = virtualLimiter(1);
    const err: any = await browserTransport()
      .request({ method: 'GET', path: '/x', limiter, signal: AbortSignal.abort(), what: 'x' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toMatch(/nothing was sent$/);
    expect(service.server.requests).toHaveLength(0);
  });

  it('queues first attempts in arrival order (only a retry goes first)', async () => {
    service.server.respond(json(200, { data: 1 }));
    const { limiter } = virtualLimiter(1);
    const t = browserTransport();
    await t.request({ method: 'GET', path: '/warm', what: 'warm' });
    const held = await limiter.hold();
    const b = t.request({ method: 'GET', path: '/b', limiter, what: 'b' });
    await new Promise((r) => setImmediate(r));
    const c = t.request({ method: 'GET', path: '/c', limiter, what: 'c' });
    await new Promise((r) => setImmediate(r));
    held.release();
    await Promise.all([b, c]);
    expect(service.server.requests.map((r) => r.url)).toEqual([
      '/api/v2/browser/warm',
      '/api/v2/browser/b',
      '/api/v2/browser/c',
    ]);
  });

  it("waits out a 429's Retry-After through the limiter, holding its other callers back", async () => {
    service.server.respond(
      json(429, { error: 'slow' }, { 'retry-after': '30' }),
      json(200, { data: 'ok' }),
    );
    const { clock, limiter } = virtualLimiter(5);
    // Without the limiter's wait the call would sleep 30 s of real time and hit this bound.
    const t = browserTransport({ maxRateLimitWaitMs: 5000 });
    expect(await t.request({ method: 'GET', path: '/x', limiter, what: 'x' })).toBe('ok');
    expect(clock.now).toBeGreaterThanOrEqual(30_000);
    expect(service.server.requests).toHaveLength(2);
  });

  it('releases a slot granted to a call whose signal aborted meanwhile, and sends nothing', async () => {
    const controller = new AbortController();
    let released = 0;
    // A limiter whose grant races the caller's abort: the slot arrives after the signal fired.
    const racing = {
      hold: async () => {
        controller.abort();
        return { release: () => released++ };
      },
    } as unknown as RateLimiter;
    const err = await browserTransport()
      .request({ method: 'GET', path: '/x', limiter: racing, signal: controller.signal, what: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(released).toBe(1);
    expect(service.server.requests).toHaveLength(0);
  });
});
