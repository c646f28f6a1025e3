/**
 * A session's debugger address admits what Chromium's own debugging port admits: a Host of
 * loopback with its port, or with no port at all (chromedriver's WebSocket handshake sends
 * `Host: 127.0.0.1`), and refuses a DNS name (a rebinding page) and another site's Origin. No
 * session runs here: an admitted request gets the 404 for an unknown session, a refused one 403.
 */
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDebuggerAddress } from '../../../src/emulator/runtime/debugger-address.js';
import type { DebuggerAddress } from '../../../src/emulator/runtime/types.js';

let listener: DebuggerAddress;
beforeEach(async () => {
  listener = await openDebuggerAddress('s1', {
    running: () => undefined,
    anyRunning: () => undefined,
  });
});
afterEach(async () => {
  await listener.close();
});

function status(headers: Record<string, string>, upgrade = false): Promise<number> {
  const port = Number(listener.address.split(':')[1]);
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: upgrade ? '/devtools/browser/x' : '/json/version',
      setHost: false,
      headers: upgrade
        ? {
            ...headers,
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          }
        : headers,
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('openDebuggerAddress', () => {
  it.each([false, true])(
    'admits a loopback Host with or without its port (upgrade: %s)',
    async (upgrade) => {
      const port = listener.address.split(':')[1];
      for (const host of [
        '127.0.0.1',
        `127.0.0.1:${port}`,
        'localhost',
        `localhost:${port}`,
        '[::1]',
      ]) {
        expect(await status({ host }, upgrade), host).toBe(404);
      }
    },
  );

  it.each([false, true])(
    'refuses a DNS name, another port and a foreign Origin (upgrade: %s)',
    async (upgrade) => {
      const port = listener.address.split(':')[1];
      expect(await status({ host: 'rebound.example' }, upgrade)).toBe(403);
      expect(await status({ host: `rebound.example:${port}` }, upgrade)).toBe(403);
      expect(await status({ host: '127.0.0.1:1' }, upgrade)).toBe(403);
      expect(await status({ host: '127.0.0.1', origin: 'http://evil.example' }, upgrade)).toBe(403);
    },
  );
});
