/**
 * `debugger_address` with a modelled network (`network.rttMs` > 0): the address handed out is the
 * latency front on loopback, not Chromium's own, and the front closes with the session.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../src/emulator/options.js';
import { createCdpProxy, createLiveView } from '../../../src/emulator/runtime/index.js';
import { startWithParts } from '../../../src/emulator/start.js';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';
import { fakeParts } from '../helpers/fake-runtime.js';

let emu: FakeEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** 'open' when something listens at `address`, else the connect error's code. */
function probe(address: string): Promise<string> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host: host as string, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('debugger_address with a modelled network', () => {
  it('is a latency front on loopback that closes, with the address behind it, when the session ends', async () => {
    emu = await startFakeEmulator({ network: { rttMs: 20 } });
    const local = emu;
    const api = client(local.url, local.token);
    const { id } = (
      await api('POST', '/sessions', { body: { proxy_password: local.proxyPassword } })
    ).body.data;
    const connection = await api('GET', `/sessions/${id}/connection`);
    expect(connection.status).toBe(200);
    const address = connection.body.data.debugger_address as string;
    expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    // Not the fake runtime's own address (127.0.0.1:1): the front relays to it.
    expect(address).not.toBe('127.0.0.1:1');
    expect(await probe(address)).toBe('open');

    await api('DELETE', `/sessions/${id}`);
    expect(local.control.debuggerAddresses).toEqual([{ sessionId: id, closed: true }]);
    expect(await probe(address)).toBe('ECONNREFUSED');
  });
});

/** GET `path` at `address` with these headers; resolves with the status. */
function statusOf(address: string, path: string, headers: Record<string, string>) {
  const [host, port] = address.split(':');
  return new Promise<number>((resolve, reject) => {
    const req = httpRequest({ host, port: Number(port), path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('debugger_address answers only its own origin', () => {
  for (const rttMs of [0, 20]) {
    it(`refuses a foreign Host or a cross-site Origin with 403${rttMs ? ' behind a latency front' : ''}`, async () => {
      const parts = fakeParts();
      emu = Object.assign(
        await startWithParts(resolveOptions({ network: { rttMs } }), {
          ...parts,
          createProxy: createCdpProxy,
          createLiveView,
        }),
        { control: parts.control },
      );
      const api = client(emu.url, emu.token);
      const { id } = (
        await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } })
      ).body.data;
      const address = (await api('GET', `/sessions/${id}/connection`)).body.data
        .debugger_address as string;
      const port = address.split(':')[1];
      // The fake browser has no Chromium behind it: a request let through fails upstream.
      const own = await statusOf(address, '/json/version', { host: `localhost:${port}` });
      expect(own).not.toBe(403);
      expect(own).toBeGreaterThanOrEqual(500);
      expect(
        await statusOf(address, '/json/version', { host: `rebind.attacker.example:${port}` }),
      ).toBe(403);
      expect(
        await statusOf(address, '/json/version', {
          host: address,
          origin: 'https://attacker.example',
        }),
      ).toBe(403);
      expect(await statusOf(address, '//', { host: address })).toBe(400);
    });
  }
});
