import { once } from 'node:events';
import { createServer, type IncomingMessage, request } from 'node:http';
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  pipeBoth,
  refuseUpgrade,
  requestHead,
  responseHead,
} from '../../../src/emulator/server/raw-http.js';
import { VERSION } from '../../../src/version.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A real HTTP server whose every upgrade is refused by `refuse`. */
async function refusingServer(refuse: (socket: Duplex) => void) {
  const server = createServer();
  server.on('upgrade', (_req, socket) => refuse(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => server.close());
  return (server.address() as AddressInfo).port;
}

/** Asks for a websocket upgrade the way a CDP client does; resolves with the plain answer. */
async function askUpgrade(port: number, path: string) {
  const req = request({
    port,
    host: '127.0.0.1',
    path,
    headers: { connection: 'Upgrade', upgrade: 'websocket' },
  });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let text = '';
  for await (const chunk of res) text += chunk;
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(text) as unknown };
}

describe('responseHead and requestHead', () => {
  it('write a status line with its standard reason, the headers and the blank line', () => {
    expect(responseHead(502, { 'content-length': '0' })).toBe(
      'HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n',
    );
    expect(responseHead(200, {}, 'Connection Established')).toBe(
      'HTTP/1.1 200 Connection Established\r\n\r\n',
    );
  });

  it('take node raw header pairs as they are, names and repeats kept', () => {
    expect(requestHead('GET', '/devtools/browser/x', ['Host', 'a', 'X-A', '1', 'X-A', '2'])).toBe(
      'GET /devtools/browser/x HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nX-A: 2\r\n\r\n',
    );
  });
});

describe('refuseUpgrade', () => {
  it('answers an upgrade with a JSON error a real HTTP client reads, stamped and closed', async () => {
    const port = await refusingServer((socket) => refuseUpgrade(socket, 404, 'no such endpoint'));
    const answer = await askUpgrade(port, '/cdp/s1?token=secret-token');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'no such endpoint' });
    expect(answer.headers['x-emulator-version']).toBe(VERSION);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.stringify(answer)).not.toContain('secret-token');
  });

  it('sends the body it is given instead of { error } (an injected fault)', async () => {
    const port = await refusingServer((socket) =>
      refuseUpgrade(socket, 503, 'Injected fault', { error: 'busy', retry_after: 2 }),
    );
    const answer = await askUpgrade(port, '/cdp/s1');
    expect(answer).toMatchObject({ status: 503, body: { error: 'busy', retry_after: 2 } });
  });
});

/** Two connected TCP socket pairs: [client side, server side]. */
async function socketPair(): Promise<[Socket, Socket]> {
  const server = createTcpServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => server.close());
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  const [serverSide] = await accepted;
  closers.push(() => {
    client.destroy();
    serverSide.destroy();
  });
  return [client, serverSide];
}

describe('pipeBoth', () => {
  it('relays bytes both ways and counts every chunk as activity', async () => {
    const [left, leftInner] = await socketPair();
    const [rightInner, right] = await socketPair();
    let activity = 0;
    pipeBoth(leftInner, rightInner, () => activity++);
    left.write('ping');
    const [toRight] = await once(right, 'data');
    right.write('pong');
    const [toLeft] = await once(left, 'data');
    expect(String(toRight)).toBe('ping');
    expect(String(toLeft)).toBe('pong');
    expect(activity).toBe(2);
  });

  it('destroys the other side when one closes, so no half-dead pair is left', async () => {
    const [left, leftInner] = await socketPair();
    const [rightInner, right] = await socketPair();
    pipeBoth(leftInner, rightInner);
    left.destroy();
    await once(right, 'close');
    expect(leftInner.destroyed && rightInner.destroyed).toBe(true);
  });

  it('returns a teardown that ends both sides', async () => {
    const [, leftInner] = await socketPair();
    const [rightInner, right] = await socketPair();
    const teardown = pipeBoth(leftInner, rightInner);
    teardown();
    await once(right, 'close');
    expect(leftInner.destroyed && rightInner.destroyed).toBe(true);
  });
});
