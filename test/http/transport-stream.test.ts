/**
 * Transport.streamTo (recording downloads to a stream) and the transport's connection pool, each
 * pinned by the mutation pass (issue 18): where the Authorization header goes, how a failed or
 * refused download reads, and which dispatcher carries the calls and is closed by close().
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
} from '../../src/http/errors.js';
import type { StreamToSpec, Transport } from '../../src/http/transport.js';
import { debugLines } from '../helpers/debug-lines.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { useBrowserTransport } from './transport-harness.js';

const TOKEN = 'stream-test-token-77';
const service = useBrowserTransport(TOKEN);
const { browserTransport } = service;
let other: TestServer;

beforeAll(async () => {
  other = await startTestServer();
});
afterAll(() => other.close());
afterEach(() => {
  other.requests.length = 0;
});

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
    const own: Server = createServer((_req, res) => {
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
