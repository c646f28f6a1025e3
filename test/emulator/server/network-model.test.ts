/**
 * The emulator's network model. Only lower bounds on time are asserted (a slow machine only
 * makes them truer); the rest is order and counts.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { modelLine } from '../../../src/emulator/cli-entry.js';
import { resolveOptions } from '../../../src/emulator/options.js';
import { type LatencyFront, openLatencyFront } from '../../../src/emulator/server/network-model.js';
import { isRequestValidationError } from '../../../src/http/index.js';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A TCP echo server behind a latency front. */
async function echoBehindFront(rttMs: number): Promise<LatencyFront> {
  const echo = createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('data', (chunk) => socket.write(chunk));
    socket.on('end', () => socket.end('bye'));
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const { port } = echo.address() as { port: number };
  const front = await openLatencyFront({
    target: `127.0.0.1:${port}`,
    rttMs,
    host: '127.0.0.1',
    port: 0,
  });
  cleanups.push(async () => {
    await front.close();
    await new Promise<void>((resolve) => echo.close(() => resolve()));
  });
  return front;
}

function connectTo(front: LatencyFront): Socket {
  const socket = tcpConnect({ host: '127.0.0.1', port: front.port, allowHalfOpen: true });
  cleanups.push(async () => void socket.destroy());
  return socket;
}

/** Resolves with the time at which `socket` has received `bytes` more bytes. */
function received(socket: Socket, bytes: number): Promise<{ at: number; data: Buffer }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size < bytes) return;
      socket.off('data', onData);
      resolve({ at: performance.now(), data: Buffer.concat(chunks) });
    };
    socket.on('data', onData);
  });
}

describe('latency front', () => {
  it('costs a new connection one round trip for the handshake and each exchange one more', async () => {
    const front = await echoBehindFront(200);
    const started = performance.now();
    const socket = connectTo(front);
    const first = received(socket, 1);
    socket.write('a');
    expect((await first).at - started).toBeGreaterThanOrEqual(400);

    const sent = performance.now();
    const second = received(socket, 1);
    socket.write('b');
    const { at, data } = await second;
    expect(data.toString()).toBe('b');
    expect(at - sent).toBeGreaterThanOrEqual(200);
  });

  it('delivers every byte in order in both directions, and a half-close after the data', async () => {
    const front = await echoBehindFront(20);
    const socket = connectTo(front);
    const payload = randomBytes(3 * 1024 * 1024);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    const ended = new Promise<void>((resolve) => socket.on('end', resolve));
    for (let offset = 0; offset < payload.length; offset += 64 * 1024) {
      socket.write(payload.subarray(offset, offset + 64 * 1024));
    }
    socket.end();
    await ended;
    const all = Buffer.concat(chunks);
    expect(all.length).toBe(payload.length + 3);
    expect(all.subarray(0, payload.length).equals(payload)).toBe(true);
    expect(all.subarray(payload.length).toString()).toBe('bye');
  });

  it('cuts relayed connections on close', async () => {
    const front = await echoBehindFront(10);
    const socket = connectTo(front);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
    await front.close();
    await ended;
    expect(socket.readyState).toBe('writeOnly');
  });
});

describe('startEmulator({ network, sessionStartMs })', () => {
  async function emulator(options: Parameters<typeof startFakeEmulator>[0]): Promise<FakeEmulator> {
    const emu = await startFakeEmulator(options);
    cleanups.push(() => emu.close());
    return emu;
  }

  it('adds the round trip to every HTTP exchange, and the handshake to a new connection', async () => {
    const emu = await emulator({ network: { rttMs: 200 } });
    const agent = new Agent({ connections: 1 });
    cleanups.push(() => agent.close());
    const get = async () => {
      const t0 = performance.now();
      const res = await request(`${emu.url}/_emulator/state`, { dispatcher: agent });
      await res.body.json();
      return performance.now() - t0;
    };
    expect(await get()).toBeGreaterThanOrEqual(400);
    expect(await get()).toBeGreaterThanOrEqual(200);
  });

  it('holds each create for sessionStartMs, with the slot taken meanwhile', async () => {
    const emu = await emulator({ sessionStartMs: 400, defaultLimits: { concurrentSessions: 1 } });
    const api = client(emu.url, emu.token);
    const body = { proxy_password: emu.proxyPassword };
    const t0 = performance.now();
    const first = api('POST', '/sessions', { body });
    // Launched, still within its start time: the one slot is taken.
    while (emu.control.launched.length === 0) await new Promise((r) => setTimeout(r, 5));
    const second = await api('POST', '/sessions', { body });
    expect(second.status).toBe(429);
    const created = await first;
    expect(performance.now() - t0).toBeGreaterThanOrEqual(400);
    expect(created.status).toBe(200);
    expect(created.body.data.status).toBe('running');
  });

  it('holds an async create too: the poll says pending until the start time has passed', async () => {
    const emu = await emulator({ sessionStartMs: 400 });
    const api = client(emu.url, emu.token);
    const t0 = performance.now();
    const { body } = await api('POST', '/sessions-async', {
      body: { proxy_password: emu.proxyPassword },
    });
    const poll = () => api('GET', `/sessions-async/${body.data.request_id}`);
    const seen: string[] = [];
    for (;;) {
      const status = (await poll()).body.data.status as string;
      if (seen.at(-1) !== status) seen.push(status);
      if (status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen).toEqual(['pending', 'completed']);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(400);
  });

  it('cuts the start time short on reset and close, and the create fails having ended its browser', async () => {
    // A start time far beyond the test's timeout: only the cut lets the create answer.
    const emu = await emulator({ sessionStartMs: 10 * 60_000 });
    const api = client(emu.url, emu.token);
    const creating = api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } });
    while (emu.control.launched.length === 0) await new Promise((r) => setTimeout(r, 5));
    await emu.admin.reset();
    const created = await creating;
    expect(created.status).toBe(503);
    expect(created.body.error).toContain('while the session was starting');
    expect((await emu.admin.state()).runningSessions).toBe(0);
    expect(emu.control.launched.every((b) => !b.alive)).toBe(true);

    const again = api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } });
    while (emu.control.launched.length === 1) await new Promise((r) => setTimeout(r, 5));
    await emu.close();
    await again.catch(() => {});
    expect(emu.control.launched.every((b) => !b.alive)).toBe(true);
  });

  it('rejects a negative, non-finite or non-number time naming the option', () => {
    for (const [options, field] of [
      [{ network: { rttMs: -1 } }, 'network.rttMs'],
      [{ network: { rttMs: Number.NaN } }, 'network.rttMs'],
      [{ network: { rttMs: '100' } }, 'network.rttMs'],
      [{ network: 100 }, 'network'],
      [{ sessionStartMs: Number.POSITIVE_INFINITY }, 'sessionStartMs'],
      [{ sessionStartMs: -5 }, 'sessionStartMs'],
      [{ network: { flaky: { meanIntervalMs: 0 } } }, 'network.flaky.meanIntervalMs'],
      [{ network: { flaky: {} } }, 'network.flaky.meanIntervalMs'],
      [{ network: { flaky: null } }, 'network.flaky.meanIntervalMs'],
    ] as const) {
      let caught: unknown;
      try {
        resolveOptions(options as never);
      } catch (error) {
        caught = error;
      }
      expect(isRequestValidationError(caught), JSON.stringify(options)).toBe(true);
      expect((caught as { field: string }).field).toBe(field);
    }
    expect(resolveOptions({}).network.rttMs).toBe(0);
    expect(resolveOptions({}).sessionStartMs).toBe(0);
    expect(resolveOptions({}).network.flaky).toBeUndefined();
    expect(resolveOptions({ network: { flaky: { meanIntervalMs: 3000 } } }).network).toEqual({
      rttMs: 0,
      flaky: { meanIntervalMs: 3000 },
    });
  });
});

describe('the CLI banner', () => {
  it('says what the emulator models, and nothing when it models nothing', () => {
    expect(modelLine({ network: { rttMs: 100 }, sessionStartMs: 2000 })).toBe(
      '# network model: 100 ms round trip on every exchange and connection, 2000 ms per session start',
    );
    expect(modelLine({ network: { flaky: { meanIntervalMs: 3000 } } })).toBe(
      '# network model: a connection cut every 3000 ms on average',
    );
    expect(modelLine({})).toBeUndefined();
  });
});
