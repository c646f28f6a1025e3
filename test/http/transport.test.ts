import { PassThrough } from 'node:stream';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { setDebugSink } from '../../src/http/debug.js';
import {
  AbortError,
  BadRequestError,
  ConnectionError,
  RateLimitError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServiceUnavailableError,
  TimeoutError,
  UpstreamError,
} from '../../src/http/errors.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { clearRegisteredSecrets, registerSecret } from '../../src/http/redact.js';
import { withEnv } from '../helpers/env.js';
import { drop, json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { useBrowserTransport } from './transport-harness.js';

const TOKEN = 'transport-test-token-123';
const service = useBrowserTransport(TOKEN, { retry: { baseDelayMs: 10, maxDelayMs: 20 } });
const { browserTransport } = service;

describe('Transport', () => {
  it('sends the auth header, a JSON body and the query string, and unwraps { data }', async () => {
    service.server.respond(json(200, { data: { id: 's1', extra: true } }));
    const t = browserTransport();
    const out = await t.request({
      method: 'POST',
      path: '/sessions',
      query: { a: 1, b: undefined, c: true },
      body: { proxy_password: 'x' },
      what: 'sessions.create',
    });
    expect(out).toEqual({ id: 's1', extra: true });
    const [req] = service.server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/api/v2/browser/sessions?a=1&c=true');
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers['user-agent']).toMatch(/^remote-browser\//);
    expect(JSON.parse(req?.body ?? '')).toEqual({ proxy_password: 'x' });
  });

  it('uses the account header and no unwrapping for the account service', async () => {
    service.server.respond(json(200, { balance: 3 }));
    const t = browserTransport({
      service: 'account',
      apiPath: '/api/v2/base',
      authorization: 'x-api-key k1',
      unwrapData: false,
    });
    expect(await t.request({ method: 'GET', path: '/llm/balance/', what: 'balance' })).toEqual({
      balance: 3,
    });
    expect(service.server.requests[0]?.headers.authorization).toBe('x-api-key k1');
  });

  it('reuses keep-alive connections across consecutive calls', async () => {
    service.server.respond(json(200, { data: 1 }));
    const t = browserTransport();
    for (let i = 0; i < 6; i++) await t.request({ method: 'GET', path: `/${i}`, what: 'x' });
    const ports = new Set(service.server.requests.map((r) => r.remotePort));
    expect(service.server.requests).toHaveLength(6);
    expect(ports.size).toBeLessThanOrEqual(2);
  });

  it('validates the payload and names the offending field', async () => {
    service.server.respond(json(200, { data: { id: 5 } }));
    const t = browserTransport();
    const err: any = await t
      .request({
        method: 'GET',
        path: '/sessions/x',
        schema: z.object({ id: z.string() }),
        what: 'sessions.retrieve',
      })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.field).toBe('id');
    expect(err.message).toContain('sessions.retrieve');
  });

  it('reports a success body without { data } as a validation error', async () => {
    service.server.respond(json(200, { id: 's' }));
    const err: any = await browserTransport()
      .request({ method: 'GET', path: '/x', what: 'x' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.field).toBe('data');
  });

  it('retries an idempotent GET on 503, honouring Retry-After', async () => {
    service.server.respond(
      json(503, { error: 'busy', reason: 'maintenance' }, { 'retry-after': '0.2' }),
      json(200, { data: 'ok' }),
    );
    const started = Date.now();
    expect(await browserTransport().request({ method: 'GET', path: '/x', what: 'x' })).toBe('ok');
    expect(service.server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it.each([408, 429, 502, 504])('retries a GET answered %i', async (status) => {
    service.server.respond(json(status, { error: 'try again' }), json(200, { data: 'ok' }));
    const t = browserTransport({ retry: { retries: 1, baseDelayMs: 1 } });
    expect(await t.request({ method: 'GET', path: '/x', what: 'x' })).toBe('ok');
    expect(service.server.requests).toHaveLength(2);
  });

  it('gives up after the last retry with the last error', async () => {
    service.server.respond(
      json(408, { error: 'a' }),
      json(504, { error: 'b' }),
      json(502, { error: 'c' }),
    );
    const err: any = await browserTransport({ retry: { retries: 2, baseDelayMs: 1 } })
      .request({ method: 'GET', path: '/x', what: 'x' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(service.server.requests).toHaveLength(3);
  });

  it('does not retry a POST after a 502', async () => {
    service.server.respond(json(502, { error: 'upstream' }), json(200, { data: 'second' }));
    const err: any = await browserTransport()
      .request({ method: 'POST', path: '/sessions', body: {}, what: 'sessions.create' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(service.server.requests).toHaveLength(1);
  });

  it('does not retry a POST whose connection dropped, and says it may have been received', async () => {
    service.server.respond(drop, json(200, { data: 'second' }));
    const err: any = await browserTransport()
      .request({ method: 'POST', path: '/sessions', body: {}, what: 'sessions.create' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.requestSent).toBe(true);
    expect(err.message).toMatch(/may have received/);
    expect(service.server.requests).toHaveLength(1);
  });

  it('retries a GET whose connection dropped', async () => {
    service.server.respond(drop, json(200, { data: 'ok' }));
    expect(await browserTransport().request({ method: 'GET', path: '/x', what: 'x' })).toBe('ok');
    expect(service.server.requests).toHaveLength(2);
  });

  it('retries even a POST when the connection was refused (it never left)', async () => {
    const t = browserTransport({
      origin: 'http://127.0.0.1:1',
      retry: { retries: 1, baseDelayMs: 1 },
    });
    const err: any = await t
      .request({ method: 'POST', path: '/sessions', body: {}, what: 'sessions.create' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.requestSent).toBe(false);
  });

  it('does not retry when Retry-After exceeds the cap', async () => {
    service.server.respond(
      json(429, { error: 'slow down', retry_after: 600 }, { 'retry-after': '600' }),
    );
    const err: any = await browserTransport({ retry: { maxRetryAfterMs: 1000 } })
      .request({ method: 'GET', path: '/x', what: 'x' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(600_000);
    expect(service.server.requests).toHaveLength(1);
  });

  it('does not wait past the deadline for a retry', async () => {
    service.server.respond(json(503, { error: 'busy' }, { 'retry-after': '5' }));
    const err: any = await browserTransport()
      .request({ method: 'GET', path: '/x', timeout: 500, what: 'x' })
      .catch((e: any) => e);
    // Waiting for the retry would have ended in a TimeoutError at the deadline instead.
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(service.server.requests).toHaveLength(1);
  });

  it('times out with a TimeoutError naming the call', async () => {
    service.server.respond(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 1000));
      res.end('{}');
    });
    const err: any = await browserTransport()
      .request({ method: 'GET', path: '/slow', timeout: 100, what: 'sessions.list' })
      .catch((e: any) => e);
    // Without the timeout the call would end with the server's late `{}` instead.
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toMatch(/sessions\.list: timed out after 100 ms/);
  });

  it('aborts with an AbortError when the caller signal fires', async () => {
    service.server.respond(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 1000));
      res.end('{}');
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err: any = await browserTransport()
      .request({ method: 'GET', path: '/slow', signal: controller.signal, what: 'x' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(AbortError);
  });

  it('fails at once for an already aborted signal without sending', async () => {
    const err: any = await browserTransport()
      .request({ method: 'GET', path: '/x', signal: AbortSignal.abort(), what: 'x' })
      .catch((e: any) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(service.server.requests).toHaveLength(0);
  });

  it('waits for the attached rate limiter before each request', async () => {
    service.server.respond(json(200, { data: 1 }));
    // The limiter's own clock, moved by hand: the third request may start only once it moves.
    let now = 0;
    const limiter = new RateLimiter({ limit: 2, windowMs: 1000, now: () => now });
    const t = browserTransport();
    const calls = [1, 2, 3].map(() => t.request({ method: 'GET', path: '/x', limiter, what: 'x' }));
    await eventually(() => service.server.requests.length >= 2, 10_000, 'two requests');
    await sleep(50);
    expect(service.server.requests).toHaveLength(2);
    now = 1000;
    await Promise.all(calls);
    expect(service.server.requests).toHaveLength(3);
  });

  it('logs redacted request lines when DEBUG is on', async () => {
    const lines: string[] = [];
    const previous = setDebugSink((l) => lines.push(l));
    // A registered secret inside the path: the request, retry and response lines all print it
    // unless every line goes through redact().
    const SECRET = 'path-secret-4242';
    registerSecret(SECRET);
    try {
      service.server.respond(
        json(503, { error: 'busy' }, { 'retry-after': '0' }),
        json(200, { data: 1 }),
      );
      await withEnv({ DEBUG: 'remote-browser:*' }, () =>
        browserTransport().request({ method: 'GET', path: `/profiles/${SECRET}`, what: 'x' }),
      );
    } finally {
      setDebugSink(previous);
      clearRegisteredSecrets();
    }
    expect(service.server.requests[0]?.url).toBe(`/api/v2/browser/profiles/${SECRET}`);
    const log = lines.join('\n');
    expect(log).toContain('→ GET /api/v2/browser/profiles/[REDACTED]');
    expect(log).toContain('(retry 1)');
    expect(log).toContain('← 200 GET /api/v2/browser/profiles/[REDACTED]');
    expect(log).not.toContain(SECRET);
  });

  it('streams a signed URL without sending the Authorization header', async () => {
    service.server.respond((_req, res) => {
      res.writeHead(206, { 'content-type': 'video/webm', 'content-range': 'bytes 0-3/10' });
      res.end('abcd');
    });
    const t = browserTransport();
    const body = new PassThrough();
    const out = await t.streamTo(
      {
        url: `${service.server.origin}/rec/1.webm?expires=1&sig=abc`,
        headers: { range: 'bytes=0-3' },
        what: 'download',
      },
      () => body,
    );
    expect(out.status).toBe(206);
    expect(await text(body)).toBe('abcd');
    expect(service.server.requests[0]?.headers.authorization).toBeUndefined();
    expect(service.server.requests[0]?.headers.range).toBe('bytes=0-3');
  });
});

describe('Transport against a hostile service', () => {
  it.each([
    ['80 KB', 80_000],
    ['1 MB', 1_000_000],
  ])(
    'maps a %s error body of dotted words to a typed, redacted error in well under a second',
    async (_size, bytes) => {
      registerSecret(TOKEN);
      try {
        const hostile = `${TOKEN} Bearer ${TOKEN} ${'a.'.repeat(bytes / 2)}`;
        service.server.respond(json(400, { error: hostile, echo: hostile }));
        const t = browserTransport({ retry: { retries: 0 } });
        const started = performance.now();
        const error = await t
          .request({ method: 'GET', path: '/sessions', what: 'sessions.list' })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BadRequestError);
        const message = (error as BadRequestError).message;
        expect(message.length).toBeLessThan(8 * 1024 + 200);
        expect(message).toMatch(/more characters cut\)$/);
        expect(message).not.toContain(TOKEN);
        expect(message).toContain('[REDACTED] Bearer [REDACTED] a.a.');
        expect(performance.now() - started).toBeLessThan(1000);
      } finally {
        clearRegisteredSecrets();
      }
    },
  );

  it('maps a 1 MB 402 of digits to its typed error in well under a second', async () => {
    service.server.respond(json(402, { error: `${'1'.repeat(1_000_000)} x` }));
    const t = browserTransport({ retry: { retries: 0 } });
    const started = performance.now();
    const error = await t
      .request({ method: 'GET', path: '/sessions', what: 'sessions.list' })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('PaymentRequiredError');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('Transport body limits', () => {
  /** A 200 JSON body that never ends: `{"data":"xxxx…` until the client goes. */
  const endlessJson = (status = 200) =>
    ((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.write('{"data":"');
      const piece = 'x'.repeat(64 * 1024);
      const more = () => {
        while (!res.destroyed && res.write(piece));
      };
      res.on('drain', more);
      more();
    }) as Parameters<typeof service.server.respond>[0];

  it('ends a JSON body that never ends at the default 16 MiB with a typed error', async () => {
    service.server.respond(endlessJson());
    const t = browserTransport({ retry: { retries: 0 } });
    const error = await t
      .request({ method: 'GET', path: '/sessions', what: 'sessions.list' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).limitBytes).toBe(16 * 1024 * 1024);
    expect((error as Error).message).toBe(
      'sessions.list: the response body is larger than 16777216 bytes (the `maxResponseBytes` limit); the rest was not read',
    );
  });

  it('refuses a JSON body over maxResponseBytes, by Content-Length or by count, error statuses too', async () => {
    const big = { data: 'y'.repeat(5000) };
    service.server.respond(json(200, big), endlessJson(500));
    const t = browserTransport({ maxResponseBytes: 4096, retry: { retries: 0 } });
    for (let i = 0; i < 2; i++) {
      const error = await t
        .request({ method: 'GET', path: '/sessions', what: 'sessions.list' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect((error as ResponseTooLargeError).limitBytes).toBe(4096);
    }
    expect(service.server.requests).toHaveLength(2);
  });

  it('reads a JSON body of exactly maxResponseBytes', async () => {
    const body = JSON.stringify({ data: 'z'.repeat(100) });
    service.server.respond(json(200, { data: 'z'.repeat(100) }));
    const t = browserTransport({ maxResponseBytes: Buffer.byteLength(body) });
    expect(await t.request({ method: 'GET', path: '/sessions', what: 'sessions.list' })).toBe(
      'z'.repeat(100),
    );
  });
});
