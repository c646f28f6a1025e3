import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserRuntime,
  createBrowserRuntime,
  createLiveView,
} from '../../../src/emulator/runtime/index.js';
import { Recorder } from '../../../src/emulator/runtime/recorder.js';
import type { RunningBrowser } from '../../../src/emulator/runtime/types.js';
import { startTestPages, type TestPages } from './test-pages.js';

const run = promisify(execFile);

async function probe(path: string): Promise<{ codec: string; duration: number }> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=codec_type,codec_name:format=duration',
    '-of',
    'json',
    path,
  ]);
  const info = JSON.parse(stdout);
  expect(info.streams[0].codec_type).toBe('video');
  return { codec: info.streams[0].codec_name, duration: Number(info.format.duration) };
}

const JPEG_START = Buffer.from([0xff, 0xd8, 0xff]);

describe('recordings and live view', () => {
  let runtime: BrowserRuntime;
  let pages: TestPages;

  beforeAll(async () => {
    [runtime, pages] = await Promise.all([createBrowserRuntime(), startTestPages()]);
  });
  afterAll(async () => {
    await runtime.shutdown();
    await pages.close();
  });

  it('records a session as a WebM that lasts as long as the session', async () => {
    expect(runtime.recordingsAvailable).toBe(true);
    const browser = await runtime.launch({ sessionId: randomUUID(), record: true });
    const started = performance.now();
    await browser.actions.navigate(`${pages.origin}/animated`);
    await new Promise((r) => setTimeout(r, 1_500));
    // A still page sends no frames: the recording must hold the last one until the stop.
    await browser.actions.navigate(`${pages.origin}/`);
    await new Promise((r) => setTimeout(r, 1_500));
    const sessionSeconds = (performance.now() - started) / 1000;

    const encoding = performance.now();
    const recording = await browser.stop();
    console.info(
      `recording: session ${sessionSeconds.toFixed(2)} s, video ${recording?.durationSeconds} s, ` +
        `${recording?.sizeBytes} bytes, encoded in ${(performance.now() - encoding).toFixed(0)} ms`,
    );
    expect(recording).toMatchObject({ contentType: 'video/webm' });
    expect(recording!.sizeBytes).toBeGreaterThan(0);
    const { codec, duration } = await probe(recording!.path);
    console.info(`ffprobe: ${codec}, ${duration} s`);
    expect(codec).toBe('vp8');
    expect(duration).toBeGreaterThanOrEqual(sessionSeconds - 0.3);
    expect(recording!.durationSeconds).toBeGreaterThanOrEqual(sessionSeconds - 0.3);
    expect(runtime.liveProcessCount()).toBe(0);
  });

  it('makes no recording when the session is not recorded', async () => {
    const browser = await runtime.launch({ sessionId: randomUUID(), record: false });
    expect(await browser.stop()).toBeUndefined();
  });

  it('ends with Chromium gone and nothing encoded; the recording is encoded once, when asked for', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'runtime-end-test-'));
    const own = await createBrowserRuntime({ workDir });
    const files = () => readdirSync(workDir, { recursive: true }).map(String);
    try {
      const sessionId = randomUUID();
      const browser = await own.launch({ sessionId, record: true });
      await browser.actions.navigate(`${pages.origin}/animated`);
      // Frames have come in (one on disk means at least two), so there is something to encode:
      // on busy cores the first frame can come after the navigation's answer.
      await expect
        .poll(() => files().some((f) => /frames\/\d{6}\.jpg$/.test(f)), { timeout: 15_000 })
        .toBe(true);
      const ended = await browser.end();
      expect(own.liveProcessCount()).toBe(0);
      // The frames wait on disk (the last one too); no encode has run.
      expect(files()).toContainEqual(expect.stringMatching(/frames\/\d{6}\.jpg$/));
      expect(files()).not.toContainEqual(expect.stringMatching(/recording\.webm$/));
      const asked = ended.recording();
      expect(ended.recording()).toBe(asked);
      const recording = await asked;
      expect(recording?.path).toMatch(new RegExp(`^${workDir}/s-[\\w-]+/recording\\.webm$`));
      expect(recording?.path).not.toContain(sessionId);
      expect(existsSync(recording!.path)).toBe(true);
      expect(files()).not.toContainEqual(expect.stringMatching(/\.jpg$/));
      // Asked for first, it is not discarded after.
      await ended.discard();
      expect(existsSync(recording!.path)).toBe(true);
      expect(await browser.end()).toBe(ended);
    } finally {
      await own.shutdown();
      await rm(workDir, { recursive: true, force: true });
    }
  });

  it('drops the frames of a recording discarded before anyone asked for it, and of one the shutdown ends', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'runtime-discard-test-'));
    const own = await createBrowserRuntime({ workDir });
    try {
      const discarded = await own.launch({ sessionId: randomUUID(), record: true });
      const running = await own.launch({ sessionId: randomUUID(), record: true });
      for (const browser of [discarded, running]) {
        await browser.actions.navigate(`${pages.origin}/animated`);
      }
      const ended = await discarded.end();
      await ended.discard();
      expect(await ended.recording()).toBeUndefined();
      await own.shutdown();
      expect(own.liveProcessCount()).toBe(0);
      // No frame, no video, no session folder: the given work dir is as it was.
      expect(readdirSync(workDir)).toEqual([]);
    } finally {
      await own.shutdown();
      await rm(workDir, { recursive: true, force: true });
    }
  });

  it('still records a session that died on its own', async () => {
    const browser = await runtime.launch({ sessionId: randomUUID(), record: true });
    await new Promise((r) => setTimeout(r, 500));
    process.kill(-browser.pid, 'SIGKILL');
    const recording = await browser.stop();
    expect(existsSync(recording!.path)).toBe(true);
    expect((await probe(recording!.path)).duration).toBeGreaterThan(0);
  });

  it('encodes a blank video of the session length when no frame ever arrived', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recorder-test-'));
    try {
      const recorder = new Recorder(dir, 'ffmpeg', 5, Date.now() - 1_200);
      const recording = await recorder.finish(Date.now());
      expect(recording.durationSeconds).toBeGreaterThanOrEqual(1.2);
      expect((await probe(recording.path)).duration).toBeGreaterThanOrEqual(1.1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('live view', () => {
    let server: Server;
    let origin: string;
    let browser: RunningBrowser;
    const token = randomBytes(32).toString('base64url');
    const liveView = createLiveView({
      resolve: (id, given) => (browser?.sessionId === id && given === token ? browser : undefined),
    });

    beforeAll(async () => {
      browser = await runtime.launch({ sessionId: randomUUID(), record: false });
      server = createServer((req, res) => {
        if (!liveView.handleHttp(req, res)) res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('serves a page at a URL carrying its token, embedding the stream with the token', async () => {
      const url = liveView.url(origin, browser.sessionId, token);
      expect(url).toBe(`${origin}/live/${browser.sessionId}?token=${token}`);
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(await res.text()).toContain(`/live/${browser.sessionId}/stream?token=${token}`);
    });

    it('answers 404 on the page, stream and status without the token or with a wrong one', async () => {
      const wrong = randomBytes(32).toString('base64url');
      for (const path of ['', '/stream', '/status']) {
        const base = `${origin}/live/${browser.sessionId}${path}`;
        for (const url of [base, `${base}?token=${wrong}`, `${base}?token=`]) {
          const res = await fetch(url);
          expect(res.status, url).toBe(404);
          expect(await res.json()).toEqual({ error: expect.any(String) });
        }
      }
      expect(
        (await fetch(`${origin}/live/${browser.sessionId}/status?token=${token}`)).status,
      ).toBe(200);
    });

    it('streams JPEG frames as MJPEG and ends the stream when the session stops', async () => {
      await browser.actions.navigate(`${pages.origin}/animated`);
      const res = await fetch(`${origin}/live/${browser.sessionId}/stream?token=${token}`);
      expect(res.headers.get('content-type')).toMatch(/^multipart\/x-mixed-replace; boundary=/);
      const reader = res.body!.getReader();
      let received = Buffer.alloc(0);
      while (received.indexOf(JPEG_START) < 0) {
        const { value, done } = await reader.read();
        if (done) break;
        received = Buffer.concat([received, value]);
      }
      expect(received.toString('latin1')).toContain('Content-Type: image/jpeg');
      expect(received.indexOf(JPEG_START)).toBeGreaterThan(0);

      await browser.stop();
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
      }
      const after = await fetch(liveView.url(origin, browser.sessionId, token));
      expect(after.status).toBe(404);
      expect(await after.json()).toEqual({ error: expect.any(String) });
    });
  });
});
