import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExitProxy, openExitProxy } from '../../../src/emulator/network/exit-proxy.js';
import { Internet } from '../../../src/emulator/network/internet.js';
import type { ExitIdentity } from '../../../src/emulator/runtime/types.js';

const identity = (connection: number): ExitIdentity => ({
  ip: `198.51.100.${connection + 1}`,
  country: 'us',
  region: 'ca',
  city: 'los_angeles',
  zip: '90001',
  isp: 'comcast',
  connection_type: 'residential',
  session_type: 'rotating',
});

let dir: string;
let socketPath: string;
let site: Server;
let exit: ExitProxy;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rb-exit-'));
  socketPath = join(dir, 'exit.sock');
  site = createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`${req.method} ${req.url} from ${req.headers['x-forwarded-for']}`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const internet = new Internet();
  internet.publish('shop.test', `http://127.0.0.1:${(site.address() as { port: number }).port}`);
  exit = await openExitProxy({
    socketPath,
    internet,
    identity,
    // No https target here: a tunnel in the clear never asks for a certificate.
    tls: { secureContextFor: () => Promise.reject(new Error('no certificate in this test')) },
  });
});

afterAll(async () => {
  await exit.close();
  await new Promise((resolve) => site.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** One absolute-form proxy request over the unix socket: status and body, or the error. */
function viaExit(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path: url, headers: { host: new URL(url).host }, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Raw bytes to the exit; resolves with the first chunk it answers. */
function raw(bytes: string): Promise<{ socket: Socket; first: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    socket.once('error', reject);
    socket.once('data', (chunk) => resolve({ socket, first: chunk.toString('latin1') }));
    socket.write(bytes);
  });
}

describe('a session exit', () => {
  it("serves a published host with the session's exit address, and exit.test with its identity", async () => {
    const page = await viaExit('http://shop.test/cart?x=1');
    expect(page).toEqual({ status: 200, body: 'GET /cart?x=1 from 198.51.100.1' });
    const me = await viaExit('http://exit.test/');
    expect(JSON.parse(me.body)).toMatchObject({ ip: '198.51.100.2', city: 'los_angeles' });
  });

  it('closes the connection for a host that is not on its internet, and answers a CONNECT to one with 502', async () => {
    await expect(viaExit('http://elsewhere.example/')).rejects.toThrow(/socket hang up|ECONNRESET/);
    const { socket, first } = await raw(
      'CONNECT elsewhere.example:443 HTTP/1.1\r\nHost: elsewhere.example:443\r\n\r\n',
    );
    socket.destroy();
    expect(first).toMatch(/^HTTP\/1\.1 502 /);
  });

  it('carries plain http inside a CONNECT tunnel to a published host', async () => {
    const { socket, first } = await raw(
      'CONNECT shop.test:80 HTTP/1.1\r\nHost: shop.test:80\r\n\r\n',
    );
    expect(first).toMatch(/^HTTP\/1\.1 200 Connection Established/);
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        if (text.includes('from 198.51.100.')) resolve(text);
      });
      socket.write('GET /in-tunnel HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n');
    });
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*GET \/in-tunnel from 198\.51\.100\.\d+$/);
  });

  it.each([
    ['a published host (the tunnel is answered 200)', 'shop.test:443'],
    ['a host off its internet (answered 502)', 'elsewhere.example:443'],
  ])(
    'outlives a browser killed right after its CONNECT to %s (EPIPE), and serves the next one',
    async (_, target) => {
      await new Promise<void>((resolve) => {
        const gone = connect(socketPath, () => {
          gone.end(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`);
          // Gone before the exit answers: its answer meets a closed socket.
          gone.destroy();
          resolve();
        });
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await viaExit('http://shop.test/next')).body).toMatch(/^GET \/next from /);
    },
  );

  it('outlives a peer that resets an open tunnel (a sandbox killed mid-request) and serves the next one', async () => {
    // Closing a unix socket with unread bytes in its queue resets its peer: the exit's end of a
    // tunnel, which node:http no longer guards once it is handed to 'connect', sees ECONNRESET.
    for (let i = 0; i < 3; i++) {
      const socket = connect(socketPath);
      socket.pause();
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('CONNECT shop.test:80 HTTP/1.1\r\nHost: shop.test:80\r\n\r\n');
      // Let the exit answer 200 into the queue this end never reads, then close on it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await viaExit('http://shop.test/after')).body).toMatch(/^GET \/after from /);
  });
});
