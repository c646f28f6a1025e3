import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseRange } from '../../../src/emulator/browser-service/recording-files.js';
import { call, client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

let emu: FakeEmulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  emu = await startFakeEmulator({ recordingPublicationDelayMs: 3000 });
  api = client(emu.url, emu.token);
  emu.control.recordingBytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
});
/** Releases an encode a test held, so a failed test does not hang the emulator's close. */
let releaseHeld = () => {};
afterEach(() => {
  releaseHeld();
  emu.control.encode = async () => {};
});
afterAll(async () => {
  await emu.close();
});

async function endedSessionWithRecording() {
  const { id } = (await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } }))
    .body.data;
  await api('DELETE', `/sessions/${id}`);
  return id as string;
}

describe('parseRange', () => {
  it.each([
    [undefined, undefined],
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=900-', { start: 900, end: 999 }],
    ['bytes=-100', { start: 900, end: 999 }],
    ['bytes=500-5000', { start: 500, end: 999 }],
    ['bytes=1000-', 'unsatisfiable'],
    ['bytes=5-1', 'unsatisfiable'],
    ['items=0-1', 'unsatisfiable'],
    ['bytes=0-1,5-6', undefined],
  ])('reads %s of a 1000-byte file as %j', (header, expected) => {
    expect(parseRange(header, 1000)).toEqual(expected);
  });
});

describe('recordings', () => {
  it('lists nothing while running and until the publication delay has passed', async () => {
    const { id } = (await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } }))
      .body.data;
    expect((await api('GET', `/sessions/${id}/recordings`)).body).toEqual({ data: [] });
    await api('DELETE', `/sessions/${id}`);
    expect((await api('GET', `/sessions/${id}/recordings`)).body).toEqual({ data: [] });
    await emu.admin.advanceClock(3000);
    const [recording] = (await api('GET', `/sessions/${id}/recordings`)).body.data;
    expect(recording).toEqual({
      id: expect.any(String),
      is_primary: true,
      duration_seconds: 2.5,
      size_bytes: 1000,
      video_url: expect.stringContaining(`${emu.url}/recording-files/`),
      video_url_expires_at: expect.stringMatching(/Z$/),
    });
    const expiresIn =
      Date.parse(recording.video_url_expires_at) - Date.parse((await emu.admin.state()).now);
    expect(expiresIn).toBeGreaterThan(9 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(10 * 60_000);
  });

  it('serves the file whole and by byte ranges, with the right headers', async () => {
    const id = await endedSessionWithRecording();
    await emu.admin.advanceClock(3000);
    const url = (await api('GET', `/sessions/${id}/recordings`)).body.data[0].video_url as string;
    const path = url.slice(emu.url.length);
    const whole = await call(emu.url, 'GET', path);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-type']).toBe('video/webm');
    expect(whole.headers['content-length']).toBe('1000');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    const part = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 10-19/1000');
    expect(part.headers.get('content-length')).toBe('10');
    expect([...new Uint8Array(await part.arrayBuffer())]).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    ]);
    const beyond = await fetch(url, { headers: { range: 'bytes=2000-' } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe('bytes */1000');
  });

  it('refuses an expired URL and a tampered signature with 403, and a new listing gives a fresh URL', async () => {
    const id = await endedSessionWithRecording();
    await emu.admin.advanceClock(3000);
    const url = (await api('GET', `/sessions/${id}/recordings`)).body.data[0].video_url as string;
    const tampered = url.replace(
      /sig=([0-9a-f])/,
      (_m, c: string) => `sig=${c === '0' ? '1' : '0'}`,
    );
    const bad = await fetch(tampered);
    expect(bad.status).toBe(403);
    expect(await bad.json()).toEqual({ error: expect.any(String) });
    await emu.admin.advanceClock(10 * 60_000);
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect((await expired.json()).error).toMatch(/expired/);
    const fresh = (await api('GET', `/sessions/${id}/recordings`)).body.data[0].video_url as string;
    expect((await fetch(fresh)).status).toBe(200);
  });

  it('states that recordings are off when the runtime has no ffmpeg', async () => {
    const off = await startFakeEmulator();
    off.control.recordingsAvailable = false;
    try {
      const state = await off.admin.state();
      expect(state.recordingsAvailable).toBe(false);
      expect(state.recordingsOffReason).toEqual(expect.any(String));
    } finally {
      await off.close();
    }
  });
});

describe('ending a session while its recording encodes', () => {
  it('answers DELETE once the browser is gone, before the encode ends, and lists the recording once encoded', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    releaseHeld = release;
    emu.control.encode = async () => {
      order.push('encode started');
      await held;
      order.push('encode finished');
    };
    const { id } = (await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } }))
      .body.data;
    const browser = emu.control.launched.at(-1)!;
    // With the encode held, a DELETE that waited for it would never answer (the test times out).
    const deleted = await api('DELETE', `/sessions/${id}`);
    order.push('DELETE answered');
    expect(deleted.status).toBe(200);
    expect(browser.alive).toBe(false);
    expect((await api('GET', `/sessions/${id}`)).body.data.status).toBe('ended');
    expect((await api('GET', `/sessions/${id}/recordings`)).body.data).toEqual([]);
    release();
    await emu.admin.advanceClock(3000);
    const listed = (await api('GET', `/sessions/${id}/recordings`)).body.data;
    expect(listed).toHaveLength(1);
    expect((await fetch(listed[0].video_url)).status).toBe(200);
    expect(order).toEqual(['encode started', 'DELETE answered', 'encode finished']);
  });
});
