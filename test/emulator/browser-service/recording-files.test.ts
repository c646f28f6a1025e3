/**
 * The recording files behind their signed `video_url`s (recording-files.ts), over the emulator's
 * real HTTP server: the signature and its expiry, the whole file, byte ranges as players and
 * resumable downloads ask for them, HEAD, and the answers to ranges it cannot serve.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRange } from '../../../src/emulator/browser-service/recording-files.js';
import { call, client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

let emu: FakeEmulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  emu = await startFakeEmulator({ recordingPublicationDelayMs: 3000 });
  api = client(emu.url, emu.token);
  emu.control.recordingBytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
});
afterAll(async () => {
  await emu.close();
});

/** The `video_url` of a fresh session's published recording (1000 bytes: byte i is i % 256). */
async function videoUrl(): Promise<string> {
  const { id } = (await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } }))
    .body.data;
  await api('DELETE', `/sessions/${id}`);
  await emu.admin.advanceClock(3000);
  return (await api('GET', `/sessions/${id}/recordings`)).body.data[0].video_url as string;
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

  it('finds nothing to serve in an empty file but the whole of it', () => {
    expect(parseRange('bytes=-10', 0)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(parseRange(undefined, 0)).toBeUndefined();
  });
});

describe('GET /recording-files/:id', () => {
  it('serves the file whole and by byte ranges, with the right headers', async () => {
    const url = await videoUrl();
    const whole = await call(emu.url, 'GET', url.slice(emu.url.length));
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
    const tail = await fetch(url, { headers: { range: 'bytes=-3' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe('bytes 997-999/1000');
    expect([...new Uint8Array(await tail.arrayBuffer())]).toEqual([
      997 % 256,
      998 % 256,
      999 % 256,
    ]);
  });

  it('answers a range beyond the file with 416 naming the size, and several ranges with the whole file', async () => {
    const url = await videoUrl();
    const beyond = await fetch(url, { headers: { range: 'bytes=2000-' } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe('bytes */1000');
    expect(await beyond.json()).toEqual({ error: expect.stringContaining('1000 bytes') });
    const several = await fetch(url, { headers: { range: 'bytes=0-1,5-6' } });
    expect(several.status).toBe(200);
    expect((await several.arrayBuffer()).byteLength).toBe(1000);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const url = await videoUrl();
    const head = await request(url, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
    expect(head.statusCode).toBe(206);
    expect(head.headers['content-length']).toBe('10');
    expect(head.headers['content-range']).toBe('bytes 0-9/1000');
    expect((await head.body.arrayBuffer()).byteLength).toBe(0);
  });

  it('refuses an expired URL and a tampered signature with 403, and a new listing gives a fresh URL', async () => {
    const { id } = (await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } }))
      .body.data;
    await api('DELETE', `/sessions/${id}`);
    await emu.admin.advanceClock(3000);
    const url = (await api('GET', `/sessions/${id}/recordings`)).body.data[0].video_url as string;
    const tampered = url.replace(
      /sig=([0-9a-f])/,
      (_m, c: string) => `sig=${c === '0' ? '1' : '0'}`,
    );
    const bad = await fetch(tampered);
    expect(bad.status).toBe(403);
    expect(await bad.json()).toEqual({ error: expect.any(String) });
    const unsigned = await fetch(url.replace(/\?.*$/, ''));
    expect(unsigned.status).toBe(403);
    await emu.admin.advanceClock(10 * 60_000);
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect((await expired.json()).error).toMatch(/expired/);
    const fresh = (await api('GET', `/sessions/${id}/recordings`)).body.data[0].video_url as string;
    expect((await fetch(fresh)).status).toBe(200);
  });
});
