import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

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
  it('answers DELETE with nothing encoded, encodes at the first due listing, which waits for it', async () => {
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
    const deleted = await api('DELETE', `/sessions/${id}`);
    order.push('DELETE answered');
    expect(deleted.status).toBe(200);
    expect(browser.alive).toBe(false);
    expect((await api('GET', `/sessions/${id}`)).body.data.status).toBe('ended');
    // Not due yet: listing it neither shows nor encodes it.
    expect((await api('GET', `/sessions/${id}/recordings`)).body.data).toEqual([]);
    await emu.admin.advanceClock(3000);
    const listing = api('GET', `/sessions/${id}/recordings`).then((res) => {
      order.push('listed');
      return res;
    });
    await expect.poll(() => order).toContain('encode started');
    release();
    const listed = (await listing).body.data;
    expect(listed).toHaveLength(1);
    expect((await fetch(listed[0].video_url)).status).toBe(200);
    // Listed again: the same recording, not a second encode.
    expect((await api('GET', `/sessions/${id}/recordings`)).body.data).toEqual([
      expect.objectContaining({ id: listed[0].id }),
    ]);
    expect(order).toEqual(['DELETE answered', 'encode started', 'encode finished', 'listed']);
  });

  it('never encodes the recording of a session nobody lists', async () => {
    const encoded: string[] = [];
    emu.control.encode = async (sessionId) => {
      encoded.push(sessionId);
    };
    const { id } = (await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } }))
      .body.data;
    await api('DELETE', `/sessions/${id}`);
    await emu.admin.advanceClock(60_000);
    expect((await api('GET', `/sessions/${id}`)).body.data.status).toBe('ended');
    // Retention forgets the session: its frames are dropped, still without an encode.
    await emu.admin.advanceClock(3 * 24 * 3_600_000);
    expect((await api('GET', `/sessions/${id}`)).status).toBe(404);
    expect(encoded).toEqual([]);
  });
});
