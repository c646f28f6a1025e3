/**
 * `debugger_address` with a modelled network (`network.rttMs` > 0): the address handed out is the
 * latency front on loopback, not Chromium's own, and the front closes with the session.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

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
