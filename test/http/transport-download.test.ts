/**
 * Transport.download: a GET's body into a file through undici's `stream()`, against real
 * loopback servers: node:http for what well-behaved servers send, a raw TCP server for the
 * framings and the broken responses node:http never writes, and a TLS server.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortError,
  ApiError,
  ConnectionError,
  NotFoundError,
  ResponseTooLargeError,
  TimeoutError,
} from '../../src/http/errors.js';
import { type DownloadSpec, Transport } from '../../src/http/transport.js';
import { debugLines } from '../helpers/debug-lines.js';

const TOKEN = 'download-test-token-31';
let dir: string;
const transports: Transport[] = [];
/** Closes each server a test started (its connections first). */
const closers: (() => Promise<void>)[] = [];
const closeServers = async () => {
  for (const close of closers.splice(0)) await close();
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rb-download-'));
});
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  await closeServers();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function transport(
  origin: string,
  extra: Partial<ConstructorParameters<typeof Transport>[0]> = {},
) {
  const t = new Transport({
    service: 'browser',
    origin,
    apiPath: '/api/v2/browser',
    authorization: `Bearer ${TOKEN}`,
    unwrapData: true,
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
