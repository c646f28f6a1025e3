import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ExitProxy, openExitProxy } from '../../../src/emulator/network/exit-proxy.js';
import { Internet } from '../../../src/emulator/network/internet.js';

let dir: string;
let socketPath: string;
let proxy: ExitProxy;
let uncaught: unknown[];
const onUncaught = (error: unknown) => uncaught.push(error);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rb-exit-proxy-'));
  socketPath = join(dir, 'exit.sock');
  const internet = new Internet();
  internet.publish('site.test', 'http://127.0.0.1:9');
  proxy = await openExitProxy({
    socketPath,
    internet,
    identity: () => ({
      ip: '198.51.100.7',
      country: 'us',
      region: 'ca',
      city: 'san_francisco',
      zip: '94103',
      isp: 'Example ISP',
      connection_type: 'residential',
      session_type: 'sticky',
    }),
    tls: { secureContextFor: () => Promise.reject(new Error('no https in this test')) },
  });
  uncaught = [];
  process.on('uncaughtException', onUncaught);
});

afterEach(async () => {
  process.off('uncaughtException', onUncaught);
  await proxy.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `request` on a new connection to the exit and resolves with everything it answers. */
function exchange(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const client = connect(socketPath, () => client.end(request));
    client.on('data', (chunk) => chunks.push(chunk));
    client.on('error', reject);
    client.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
}

describe('openExitProxy', () => {
  it.each([
    ['a published host (the tunnel is answered 200)', 'site.test:443'],
    ['a host off its internet (answered 502)', 'elsewhere.example:443'],
  ])(
    'never dies of a browser killed right after its CONNECT to %s, and serves the next one',
    async (_, target) => {
      await new Promise<void>((resolve) => {
        const gone = connect(socketPath, () => {
          gone.end(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`);
          // Gone before the exit answers: its answer meets a closed socket (EPIPE).
          gone.destroy();
          resolve();
        });
      });
      const next = await exchange(
        'CONNECT elsewhere.example:443 HTTP/1.1\r\nhost: elsewhere.example:443\r\n\r\n',
      );
      expect(next).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
      expect(uncaught).toEqual([]);
    },
  );
});
