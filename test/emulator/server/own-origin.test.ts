/**
 * The checks every emulator listener runs first (own-origin.ts), on requests a real node:http
 * server received: the Host a DNS-rebinding page sends, an Origin of another site, a body that
 * is not JSON (a cross-site form), and request targets no handler could decode.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  foreignRequest,
  isLoopbackHost,
  type Listener,
  nonJsonBody,
  parseTarget,
} from '../../../src/emulator/server/own-origin.js';

let server: Server;
let port = 0;
/** The listener the server plays: set per test (bound host), its port once listening. */
let listener: Listener = { boundHost: '127.0.0.1', ports: [] };

beforeAll(async () => {
  // Answers with what the checks decided about the request it received.
  server = createServer((req, res) => {
    const refusal = foreignRequest(req, listener) ?? nonJsonBody(req);
    res.end(JSON.stringify(refusal?.status ?? 200));
    req.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

function verdict(
  headers: Record<string, string>,
  {
    method = 'GET',
    body,
    boundHost = '127.0.0.1',
  }: { method?: string; body?: string; boundHost?: string } = {},
): Promise<number> {
  listener = { boundHost, ports: [port] };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/', headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve(Number(JSON.parse(text))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('Host and Origin', () => {
  it('admits the loopback names with the listener port, with or without an Origin of its own', async () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]', 'LOCALHOST']) {
      expect(await verdict({ host: `${host}:${port}` }), host).toBe(200);
    }
    expect(await verdict({ host: `localhost:${port}`, origin: `http://127.0.0.1:${port}` })).toBe(
      200,
    );
  });

  it('refuses a rebinding page (its own name), another port, user info, and a Host without the port', async () => {
    expect(await verdict({ host: `rebind.attacker.test:${port}` })).toBe(403);
    expect(await verdict({ host: `127.0.0.1:${port + 1}` })).toBe(403);
    expect(await verdict({ host: `user@127.0.0.1:${port}` })).toBe(403);
    expect(await verdict({ host: '127.0.0.1' })).toBe(403);
  });

  it('refuses an Origin of another site, an opaque one and one with a path', async () => {
    const host = `127.0.0.1:${port}`;
    expect(await verdict({ host, origin: 'https://attacker.example' })).toBe(403);
    expect(await verdict({ host, origin: 'null' })).toBe(403);
    expect(await verdict({ host, origin: `http://127.0.0.1:${port}/x` })).toBe(403);
    expect(await verdict({ host, origin: `http://127.0.0.1:${port + 1}` })).toBe(403);
  });

  it('bound to every interface, admits any IP literal of the machine but still no DNS name', async () => {
    expect(await verdict({ host: `192.168.1.20:${port}` }, { boundHost: '0.0.0.0' })).toBe(200);
    expect(await verdict({ host: `[fe80::1]:${port}` }, { boundHost: '::' })).toBe(200);
    expect(await verdict({ host: `rebind.test:${port}` }, { boundHost: '0.0.0.0' })).toBe(403);
    expect(await verdict({ host: `192.168.1.20:${port}` })).toBe(403);
  });
});

describe('request bodies', () => {
  const host = () => `127.0.0.1:${port}`;
  it('takes a JSON body (any charset) and a POST without a body', async () => {
    const json = { host: host(), 'content-type': 'application/json; charset=utf-8' };
    expect(await verdict(json, { method: 'POST', body: '{}' })).toBe(200);
    expect(await verdict({ host: host() }, { method: 'POST' })).toBe(200);
  });

  it('refuses what a cross-site form or a text/plain fetch sends, and a body without a type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp']) {
      const refused = await verdict(
        { host: host(), 'content-type': type },
        { method: 'POST', body: '{}' },
      );
      expect(refused, type).toBe(415);
    }
    expect(await verdict({ host: host() }, { method: 'PUT', body: '{}' })).toBe(415);
  });
});

describe('parseTarget and isLoopbackHost', () => {
  it('parses an absolute path and its query, and nothing a handler could not decode', () => {
    expect(parseTarget('/a/b?x=1')?.searchParams.get('x')).toBe('1');
    expect(parseTarget(undefined)?.pathname).toBe('/');
    for (const raw of ['//evil.test/x', 'http://evil.test/x', '/bad/%E0%A4%A', '*']) {
      expect(parseTarget(raw), raw).toBeUndefined();
    }
  });

  it('counts 127.0.0.0/8, ::1 and localhost as loopback, nothing else', () => {
    for (const host of ['127.0.0.1', '127.5.6.7', '::1', '[::1]', 'LocalHost']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '128.0.0.1', 'localhost.attacker.test', '192.168.1.2']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});
