/**
 * Transport against real loopback servers: requests (URL building, headers, which statuses and
 * failures are retried and when not, the debug lines, response bodies that are empty, not JSON,
 * not wrapped or too long, a hostile service, body limits, the rate limiter's part in a call),
 * streamTo (recording downloads to a stream: where the Authorization header goes, how a failed or
 * refused download reads), the connection pool (which dispatcher carries the calls and is closed
 * by close()) and download (a GET's body into a file through undici's `stream()`: node:http for
 * what well-behaved servers send, a raw TCP server for the framings and the broken responses
 * node:http never writes, and a TLS server). Many edges are pinned by the mutation pass (issue 18).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { text as readText } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { unwrapData } from '../../src/browser-api/envelope.js';
import { setDebugSink } from '../../src/http/debug.js';
import {
  AbortError,
  ApiError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServiceUnavailableError,
  TimeoutError,
  UpstreamError,
} from '../../src/http/errors.js';
import { notFoundHintFor } from '../../src/http/hints.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { clearRegisteredSecrets, registerSecret } from '../../src/http/redact.js';
import { type DownloadSpec, type StreamToSpec, Transport } from '../../src/http/transport.js';
import { debugLines } from '../helpers/debug-lines.js';
import { withEnv } from '../helpers/env.js';
import {
  drop,
  type Handler,
  json,
  startTestServer,
  type TestServer,
} from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { useBrowserTransport } from './transport-harness.js';
import { virtualLimiter } from './virtual-limiter.js';

const TOKEN = 'transport-test-token-123';
const service = useBrowserTransport(TOKEN, { retry: { baseDelayMs: 10, maxDelayMs: 20 } });
const { browserTransport } = service;
/** A second service: streamTo must not send it the Authorization header. */
let other: TestServer;
/** Where downloads write their files. */
let dir: string;
/** Downloads' Transports, closed after each test; `transport()` makes one. */
const transports: Transport[] = [];
/** Closes each server a test started (its connections first). */
const closers: (() => Promise<void>)[] = [];
const closeServers = async () => {
  for (const close of closers.splice(0)) await close();
};

beforeAll(async () => {
  other = await startTestServer();
  dir = await mkdtemp(join(tmpdir(), 'rb-download-'));
});
afterEach(async () => {
  other.requests.length = 0;
  for (const t of transports.splice(0)) await t.close();
  await closeServers();
});
afterAll(async () => {
  await other.close();
  await rm(dir, { recursive: true, force: true });
});

function textHandler(status: number, body: string): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  };
}

const video = json(200, 'webm-bytes');

/** `t.streamTo(spec)` into memory: the body as text. */
async function text(t: Transport, spec: StreamToSpec): Promise<string> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, next) {
      chunks.push(chunk);
      next();
    },
  });
  await t.streamTo(spec, () => sink);
  return Buffer.concat(chunks).toString();
}

/** A Transport on `origin` (a server of the test's own) with the file's token. */
function transport(
  origin: string,
  extra: Partial<ConstructorParameters<typeof Transport>[0]> = {},
) {
  const t = new Transport({
    service: 'browser',
    origin,
    apiPath: '/api/v2/browser',
    authorization: `Bearer ${TOKEN}`,
    payloadOf: unwrapData,
    notFoundHint: notFoundHintFor('browser', `${origin}/api/v2/browser`, []),
    ...extra,
  });
  transports.push(t);
  return t;
}

/** Downloads `${origin}/v?s=1` (signed, by its query) into `file(name)`; `extra` spec fields on top. */
function get(origin: string, name: string, extra: Partial<DownloadSpec> = {}) {
  return transport(origin).download({
    url: `${origin}/v?s=1`,
    what: 'download',
    path: file(name),
    ...extra,
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const file = (name: string) => join(dir, name);

/** A node:http server answering every request with `handler`; resolves to its origin. */
async function httpServer(
  handler: (
    req: import('node:http').IncomingMessage,
    res: import('node:http').ServerResponse,
  ) => void,
): Promise<{ origin: string; server: Server; seen: import('node:http').IncomingMessage[] }> {
  const seen: import('node:http').IncomingMessage[] = [];
  const server = createHttpServer((req, res) => {
    seen.push(req);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen };
}

/** A raw TCP server that reads one request head, then runs `answer` on the socket. */
async function rawServer(answer: (socket: Socket) => unknown): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (d) => {
      head += d.toString('latin1');
      if (head.includes('\r\n\r\n') && !head.startsWith('DONE')) {
        head = 'DONE';
        void answer(socket);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Writes `pieces` one at a time with a pause between, so the client reads them apart. */
async function dribble(socket: Socket, pieces: (string | Buffer)[]): Promise<void> {
  socket.setNoDelay(true);
  for (const piece of pieces) {
    socket.write(piece);
    await new Promise((r) => setTimeout(r, 3));
  }
}

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
      payloadOf: undefined,
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
    expect(await readText(body)).toBe('abcd');
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
    const t = browserTransport({
      notFoundHint: notFoundHintFor('browser', `${service.server.origin}/api/v2/browser`, [
        '/sessions*',
        '/health',
      ]),
    });
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
    const account = browserTransport({ service: 'account', payloadOf: undefined });
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

describe('Transport.streamTo', () => {
  it('sends the Authorization header to an API path of its own origin only', async () => {
    service.server.respond(video);
    other.respond(video);
    const t = browserTransport();
    expect(await text(t, { url: '/recordings/r1', what: 'download' })).toBe('"webm-bytes"');
    await text(t, { url: `${other.origin}/r1.webm`, what: 'download' });
    await text(t, { url: `${service.server.origin}/rec/1.webm?sig=abc`, what: 'download' });
    const [first, third] = service.server.requests;
    expect([first?.method, first?.url, first?.headers.authorization]).toEqual([
      'GET',
      '/api/v2/browser/recordings/r1',
      `Bearer ${TOKEN}`,
    ]);
    expect(other.requests[0]?.headers.authorization).toBeUndefined();
    expect([third?.url, third?.headers.authorization]).toEqual(['/rec/1.webm?sig=abc', undefined]);
  });

  it('keeps a path whose query names another URL under the API path', async () => {
    service.server.respond(video);
    await text(browserTransport(), {
      url: '/recordings/r1?next=http://elsewhere.example/x',
      what: 'download',
    });
    expect(service.server.requests[0]?.url).toBe(
      '/api/v2/browser/recordings/r1?next=http://elsewhere.example/x',
    );
  });

  it('logs the request and response lines of a download', async () => {
    service.server.respond(video);
    const lines = await debugLines(() =>
      text(browserTransport(), { url: '/recordings/r1', what: 'download' }),
    );
    expect(lines).toEqual([
      'remote-browser:http → GET /api/v2/browser/recordings/r1 (download)',
      'remote-browser:http ← 200 GET /api/v2/browser/recordings/r1 (download)',
    ]);
  });

  it('maps an error status, 400 included, to its error with the GET and the body message', async () => {
    const t = browserTransport();
    service.server.respond(json(404, { error: 'no such recording' }));
    const missing: any = await text(t, { url: '/recordings/r1', what: 'download' }).catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect([missing.method, missing.path]).toEqual(['GET', '/api/v2/browser/recordings/r1']);
    expect(missing.message).toContain('no such recording');
    service.server.respond(json(400, { error: 'bad range' }));
    const bad = await text(t, { url: '/recordings/r1', what: 'download' }).catch((e) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
  });

  it('still maps an error status whose body breaks off', async () => {
    service.server.respond((_req, res) => {
      res.writeHead(500, { 'content-length': '100' });
      res.write('0123456789');
      setImmediate(() => res.socket?.destroy());
    });
    const err: any = await text(browserTransport(), {
      url: '/recordings/r1',
      what: 'download',
    }).catch((e) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err.message).toBe('GET /api/v2/browser/recordings/r1 → 500: 0123456789');
  });

  it('names a refused download as never sent, and an aborted one as aborted', async () => {
    const t = browserTransport();
    const refused: any = await text(t, {
      url: 'http://127.0.0.1:1/rec/1.webm',
      what: 'download',
    }).catch((e) => e);
    expect(refused).toBeInstanceOf(ConnectionError);
    expect(refused.message).toBe(
      'download: GET /rec/1.webm failed without a response: connect ECONNREFUSED 127.0.0.1:1',
    );
    expect(refused.requestSent).toBe(false);
    expect(refused.cause).toBeInstanceOf(Error);
    const aborted = await text(t, {
      url: '/recordings/r1',
      signal: AbortSignal.abort(),
      what: 'download',
    }).catch((e) => e);
    expect(aborted).toBeInstanceOf(AbortError);
    expect(service.server.requests).toHaveLength(0);
  });
});

describe('Transport dispatcher', () => {
  it('sends through a given dispatcher and leaves it open on close()', async () => {
    service.server.respond(json(200, { data: 1 }));
    let dispatched = 0;
    class CountingAgent extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
        dispatched++;
        return super.dispatch(options, handler);
      }
    }
    const agent = new CountingAgent();
    try {
      const t = browserTransport({ dispatcher: agent });
      await t.request({ method: 'GET', path: '/x', what: 'x' });
      expect(dispatched).toBe(1);
      await t.close();
      expect(agent.closed).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it('closes the connections of its own pool on close(), twice without error', async () => {
    // A server of its own that counts open sockets and keeps idle ones open for minutes.
    const sockets = new Set<Socket>();
    const own: Server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":1}');
    });
    own.keepAliveTimeout = 120_000;
    own.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = own.address() as AddressInfo;
      const t = browserTransport({ origin: `http://127.0.0.1:${port}` });
      await t.request({ method: 'GET', path: '/x', what: 'x' });
      expect(sockets.size).toBe(1);
      await t.close();
      await eventually(() => sockets.size === 0, 10_000, 'the pooled socket to close');
      // A second close (close() and then `await using`) is harmless; a later call reopens.
      await t.close();
      expect(await t.request({ method: 'GET', path: '/y', what: 'y' })).toBe(1);
    } finally {
      own.closeAllConnections();
      await new Promise((resolve) => own.close(resolve));
    }
  });
});

describe('Transport.download (through its own pool)', () => {
  it('writes a 24 MB Content-Length body byte for byte, with progress, and no Authorization to a signed URL', async () => {
    const body = randomBytes(24 * 1024 * 1024);
    const { origin, seen } = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/webm', 'content-length': body.length });
      // Many writes, so the reader fills and reuses its buffers many times over.
      for (let at = 0; at < body.length; at += 16 * 1024)
        res.write(body.subarray(at, at + 16 * 1024));
      res.end();
    });
    const progress: [number, number | undefined][] = [];
    const got = await transport(origin).download({
      url: `${origin}/rec/v.webm?sig=secret-signature`,
      what: 'download',
      path: file('big.webm'),
      onData: (n, total) => progress.push([n, total]),
    });
    expect(got.status).toBe(200);
    expect(got.bytes).toBe(body.length);
    expect(got.headers['content-type']).toBe('video/webm');
    expect(sha(await readFile(file('big.webm')))).toBe(sha(body));
    expect(progress.length).toBeGreaterThan(8);
    expect(progress.at(-1)).toEqual([body.length, body.length]);
    expect(seen[0]?.url).toBe('/rec/v.webm?sig=secret-signature');
    expect(seen[0]?.headers.authorization).toBeUndefined();
    expect(seen[0]?.headers['user-agent']).toMatch(/^remote-browser\//);
  });

  it('sends the Authorization header to an API path of its own origin', async () => {
    const { origin, seen } = await httpServer((_req, res) => res.end('x'));
    await transport(origin).download({
      url: '/recordings/r1',
      what: 'download',
      path: file('own'),
    });
    expect([seen[0]?.url, seen[0]?.headers.authorization]).toEqual([
      '/api/v2/browser/recordings/r1',
      `Bearer ${TOKEN}`,
    ]);
  });

  it('logs the request and response lines without the signed query', async () => {
    const { origin } = await httpServer((_req, res) => res.end('x'));
    const lines = await debugLines(() =>
      transport(origin).download({
        url: `${origin}/rec/v.webm?sig=secret-signature`,
        what: 'download',
        path: file('logged'),
      }),
    );
    expect(lines).toEqual([
      'remote-browser:http → GET /rec/v.webm (download)',
      'remote-browser:http ← 200 GET /rec/v.webm (download)',
    ]);
  });

  it('decodes a chunked body read a few bytes at a time, with chunk extensions and trailers, after a 103 head', async () => {
    const origin = await rawServer((socket) =>
      dribble(socket, [
        'HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n',
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: video/mp4\r\n\r\n',
        '5;name=val',
        'ue\r\nhel',
        'lo\r',
        '\n6\r\n wor',
        'ld\r\n1',
        '0\r\n',
        Buffer.alloc(16, 'z'),
        '\r\n0\r\nX-Checksum: abc\r\n',
        '\r\n',
      ]),
    );
    const got = await get(origin, 'chunked');
    expect(got.status).toBe(200);
    expect((await readFile(file('chunked'))).toString()).toBe(`hello world${'z'.repeat(16)}`);
    expect(got.bytes).toBe(27);
  });

  it('reads a body without length or chunking until the connection closes', async () => {
    const origin = await rawServer(async (socket) => {
      await dribble(socket, [
        'HTTP/1.0 200 OK\r\nContent-Type: video/webm\r\n\r\nfirst,',
        'second',
      ]);
      socket.end();
    });
    const got = await get(origin, 'close');
    expect((await readFile(file('close'))).toString()).toBe('first,second');
    expect(got.bytes).toBe(12);
  });

  it('writes an empty file for an empty 200', async () => {
    const origin = await rawServer((socket) =>
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'),
    );
    const got = await get(origin, 'empty');
    expect(got.bytes).toBe(0);
    expect((await readFile(file('empty'))).length).toBe(0);
  });

  it('maps an error status to its error with the body message, and opens no file', async () => {
    const { origin } = await httpServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'no such recording' }));
    });
    const error = await transport(origin)
      .download({
        url: `${origin}/rec/v.webm?sig=hidden`,
        what: 'recordings.download(s1)',
        path: file('e404'),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).message).toContain('no such recording');
    expect((error as NotFoundError).path).toBe('/rec/v.webm');
    expect(String(error)).not.toContain('hidden');
    expect((await readdir(dir)).includes('e404')).toBe(false);
  });

  it.each([300, 302])(
    'refuses a %i redirect as an error instead of saving its body',
    async (status) => {
      const origin = await rawServer((socket) =>
        socket.end(
          `HTTP/1.1 ${status} Moved\r\nLocation: /elsewhere\r\nContent-Length: 5\r\n\r\nmoved`,
        ),
      );
      const error = await get(origin, `e${status}`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(status);
      expect((await readdir(dir)).includes(`e${status}`)).toBe(false);
    },
  );

  it('reads the start of an error body and does not wait for the rest', async () => {
    const origin = await rawServer((socket) => {
      // Announces 1 MB, sends 70 KB, then holds the connection open.
      socket.write('HTTP/1.1 410 Gone\r\nContent-Length: 1000000\r\n\r\n');
      socket.write('e'.repeat(70 * 1024));
    });
    const error = await get(origin, 'e410', { timeout: 5_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect([(error as ApiError).status, (error as ApiError).message]).toEqual([
      410,
      expect.stringMatching(/^GET \/v → 410: e{100}/),
    ]);
    expect((await readdir(dir)).includes('e410')).toBe(false);
  });

  it('reads a head that arrives in pieces', async () => {
    const origin = await rawServer((socket) =>
      dribble(socket, ['HTTP/1.1 200 OK\r', '\nContent-Le', 'ngth: 3\r\n', '\r', '\nabc']),
    );
    const got = await get(origin, 'split');
    expect([got.bytes, (await readFile(file('split'))).toString()]).toEqual([3, 'abc']);
  });

  it('decodes a 6 MB chunked body of many small chunks, several to a read', async () => {
    const body = randomBytes(6 * 1024 * 1024);
    const { origin } = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/webm' });
      // Chunks of 1 to 3000 bytes: node:http frames each write as one chunk.
      let at = 0;
      for (let n = 1; at < body.length; n = ((n * 7919) % 3000) + 1) {
        res.write(body.subarray(at, at + n));
        at += n;
      }
      res.end();
    });
    const got = await get(origin, 'many');
    expect(got.bytes).toBe(body.length);
    expect(sha(await readFile(file('many')))).toBe(sha(body));
  });

  it("fails with the file system's error when the file cannot be opened or written", async () => {
    const { origin } = await httpServer((_req, res) => res.end('abc'));
    const noDir = await get(origin, 'unused', { path: join(dir, 'missing', 'v.webm') }).catch(
      (e: unknown) => e,
    );
    expect((noDir as NodeJS.ErrnoException).code).toBe('ENOENT');
    // Linux's /dev/full opens, and every write to it fails with ENOSPC.
    const full = await get(origin, 'unused', { path: '/dev/full' }).catch((e: unknown) => e);
    expect((full as NodeJS.ErrnoException).code).toBe('ENOSPC');
  });

  it('fails when the body stays silent for the idle timeout', async () => {
    const origin = await rawServer((socket) =>
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'),
    );
    const error = await get(origin, 'idle', { idleTimeout: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/^download: GET \/v failed mid-body: .*timeout/i);
    expect((error as ConnectionError).requestSent).toBe(true);
  });

  it('does not connect when the signal is already aborted', async () => {
    let connections = 0;
    const origin = await rawServer(() => {});
    const server = createTcpServer(() => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    const error = await transport(origin)
      .download({
        url: `http://127.0.0.1:${port}/v?s=1`,
        what: 'download',
        path: file('pre'),
        signal: AbortSignal.abort(),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    await new Promise((r) => setTimeout(r, 50));
    expect(connections).toBe(0);
  });

  it('downloads from an IPv6 literal address', async (ctx) => {
    const server = createHttpServer((_req, res) => res.end('six'));
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(0, '::1', () => resolve(true));
    });
    if (!listening) return ctx.skip();
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const origin = `http://[::1]:${(server.address() as AddressInfo).port}`;
    const got = await get(origin, 'v6');
    expect((await readFile(file('v6'))).toString()).toBe('six');
    expect(got.bytes).toBe(3);
  });

  it.each([
    [
      'a body cut short of its Content-Length',
      'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly-ten..',
      'failed mid-body',
    ],
    [
      'a chunked body cut off mid-chunk',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\nabc',
      'failed mid-body',
    ],
    [
      'a bad chunk size',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc',
      'failed mid-body',
    ],
    ['a connection closed before any response', '', 'failed without a response'],
    ['not HTTP', 'SSH-2.0-OpenSSH_9.2\r\n\r\n', 'failed without a response'],
  ])('fails with a ConnectionError on %s', async (_name, response, how) => {
    const origin = await rawServer((socket) => socket.end(response));
    const error = await get(origin, 'broken').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(new RegExp(`^download: GET /v ${how}: `));
    expect((error as ConnectionError).requestSent).toBe(true);
  });

  it('names a refused download as never sent', async () => {
    const origin = await rawServer(() => {});
    const port = new URL(origin).port;
    await closeServers();
    const error = await transport('http://127.0.0.1:1')
      .download({ url: `http://127.0.0.1:${port}/v?s=1`, what: 'download', path: file('refused') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).requestSent).toBe(false);
    expect((error as Error).message).toMatch(/failed without a response: .*ECONNREFUSED/);
  });

  it('stops on abort mid-body and on timeout, closing the connection', async () => {
    let closed = 0;
    const origin = await rawServer((socket) => {
      socket.on('close', () => closed++);
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\nsome bytes');
    });
    const controller = new AbortController();
    const aborted = get(origin, 'aborted', {
      signal: controller.signal,
      onData: () => controller.abort(),
    }).catch((e: unknown) => e);
    expect(await aborted).toBeInstanceOf(AbortError);
    const timedOut = await get(origin, 'slow', { timeout: 200 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(TimeoutError);
    await expect.poll(() => closed).toBe(2);
  });

  it('ends a body that never ends past maxBytes with a typed error, and one whose Content-Length is over it at once', async () => {
    const { origin } = await httpServer((req, res) => {
      if (req.url?.startsWith('/long')) {
        res.writeHead(200, { 'content-length': 10_000_000 });
        res.write(Buffer.alloc(1000));
        return;
      }
      res.writeHead(200, { 'content-type': 'video/webm' });
      const piece = Buffer.alloc(64 * 1024, 1);
      const more = () => {
        while (!res.destroyed && res.write(piece));
      };
      res.on('drain', more);
      more();
    });
    const endless = await get(origin, 'endless', { maxBytes: 1_000_000 }).catch((e: unknown) => e);
    expect(endless).toBeInstanceOf(ResponseTooLargeError);
    expect((endless as ResponseTooLargeError).limitBytes).toBe(1_000_000);
    expect((endless as Error).message).toMatch(
      /^download: the response body is larger than 1000000 bytes \(the `maxBytes` limit\)/,
    );
    const declared = await get(origin, 'declared', {
      url: `${origin}/long?s=1`,
      maxBytes: 5000,
    }).catch((e: unknown) => e);
    expect(declared).toBeInstanceOf(ResponseTooLargeError);
  });

  it('fails a download whose onData throws, with that error', async () => {
    const { origin } = await httpServer((_req, res) => res.end('abc'));
    const error = await get(origin, 'throws', {
      onData: () => {
        throw new Error('callback broke');
      },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('callback broke');
  });

  it('refuses a TLS server whose certificate is not trusted', async () => {
    const { createServer } = await import('node:https');
    const fixtures = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
    const server = createServer(
      {
        key: await readFile(join(fixtures, 'localhost-key.pem')),
        cert: await readFile(join(fixtures, 'localhost-cert.pem')),
      },
      (_req, res) => res.end('secret video'),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const error = await transport(`https://localhost:${port}`)
      .download({
        url: `https://localhost:${port}/v?s=1`,
        what: 'download',
        path: file('untrusted'),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/self[- ]signed certificate/);
    expect((await readdir(dir)).includes('untrusted')).toBe(false);
  });
});

describe('Transport.download through a dispatcher of the caller', () => {
  it('downloads through that dispatcher (a proxy, a custom CA), with progress', async () => {
    const { origin } = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/webm', 'content-length': 6 });
      res.end('abcdef');
    });
    let dispatched = 0;
    class CountingAgent extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
        dispatched++;
        return super.dispatch(options, handler);
      }
    }
    const agent = new CountingAgent();
    try {
      const progress: number[] = [];
      const got = await transport(origin, { dispatcher: agent }).download({
        url: `${origin}/v?s=1`,
        what: 'download',
        path: file('dispatched'),
        onData: (n) => progress.push(n),
      });
      expect([got.status, got.bytes, progress.at(-1)]).toEqual([200, 6, 6]);
      expect((await readFile(file('dispatched'))).toString()).toBe('abcdef');
      expect(dispatched).toBe(1);
    } finally {
      await agent.close();
    }
  });

  it('ends a body that never ends past maxBytes through that dispatcher too', async () => {
    const { origin } = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/webm' });
      const piece = Buffer.alloc(64 * 1024, 1);
      const more = () => {
        while (!res.destroyed && res.write(piece));
      };
      res.on('drain', more);
      more();
    });
    const agent = new Agent();
    try {
      const error = await transport(origin, { dispatcher: agent })
        .download({
          url: `${origin}/v?s=1`,
          what: 'download',
          path: file('endless-d'),
          maxBytes: 500_000,
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect((error as ResponseTooLargeError).limitBytes).toBe(500_000);
    } finally {
      await agent.close();
    }
  });
});
