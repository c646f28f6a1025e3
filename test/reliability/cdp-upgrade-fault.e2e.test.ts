/**
 * The fault kind the matrix needs on the CDP websocket and the emulator did not have: the
 * upgrade is handled (101, the first frame reaches Chromium), then the connection is lost.
 */
import { request } from 'node:http';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';

let emu: EmulatorHandle;
let api: BrowserApi;

beforeAll(async () => {
  emu = await startEmulator({ ffmpegPath: false });
  api = new BrowserApi({ baseUrl: emu.url, token: emu.token, proxyPassword: emu.proxyPassword });
});
afterAll(async () => {
  await api?.close();
  await emu?.close();
});

/** A masked websocket text frame (client frames must be masked), payload < 126 bytes. */
function frame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(payload.map((b, i) => b ^ (mask[i % 4] as number)));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}

function upgrade(wsUrl: string): Promise<Duplex> {
  const url = new URL(wsUrl.replace(/^ws/, 'http'));
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'),
      },
    });
    req.on('upgrade', (_res, socket) => resolve(socket));
    req.on('response', (res) => reject(new Error(`refused with ${res.statusCode}`)));
    req.on('error', reject);
    req.end();
  });
}

describe('emulator fault on the CDP upgrade after handling', () => {
  it('opens the websocket, delivers the first frame, then drops the connection', async () => {
    const session = await api.sessions.create({});
    await emu.admin.injectFault({ path: '/cdp/*', dropConnection: true, afterHandling: true });
    const socket = await upgrade(session.cdp_url);
    const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
    const received: Buffer[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    socket.on('error', () => {});
    socket.write(frame('{"id":1,"method":"Browser.getVersion"}'));
    expect(await closed).toBe(true);
    // The frame was consumed with the fault: nothing is pending, the session still runs.
    expect((await emu.admin.state()).pendingFaults).toBe(0);
    expect((await api.sessions.retrieve(session.id)).status).toBe('running');
    await api.sessions.end(session.id);
  });

  it('without a fault the same websocket answers the frame', async () => {
    const session = await api.sessions.create({});
    const socket = await upgrade(session.cdp_url);
    const answer = new Promise<string>((resolve) =>
      socket.once('data', (d: Buffer) => resolve(d.toString('latin1'))),
    );
    socket.write(frame('{"id":1,"method":"Browser.getVersion"}'));
    expect(await answer).toContain('"id":1');
    socket.destroy();
    await api.sessions.end(session.id);
  });
});
