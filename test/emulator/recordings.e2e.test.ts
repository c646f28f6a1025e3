import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { findFfmpeg } from '../../src/emulator/runtime/index.js';
import { client } from './helpers/emulator.js';
import { type LocalSite, publishLocalSite, startLocalSite } from './helpers/local-site.js';

const ffmpeg = findFfmpeg();
const ffprobe = ffmpeg.path ? join(ffmpeg.path, '..', 'ffprobe') : undefined;

let emu: EmulatorHandle;
let site: LocalSite;
let api: ReturnType<typeof client>;
const dir = mkdtempSync(join(tmpdir(), 'emulator-recording-test-'));

beforeAll(async () => {
  [emu, site] = await Promise.all([
    startEmulator({ recordingPublicationDelayMs: 3000 }),
    startLocalSite(),
  ]);
  site = await publishLocalSite(emu, site);
  api = client(emu.url, emu.token);
});
afterAll(async () => {
  await emu?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function downloadInRanges(url: string, chunk: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const res = await fetch(url, { headers: { range: `bytes=${offset}-${offset + chunk - 1}` } });
    if (res.status === 416) break;
    expect(res.status).toBe(206);
    const total = Number(res.headers.get('content-range')?.split('/')[1]);
    const bytes = Buffer.from(await res.arrayBuffer());
    parts.push(bytes);
    offset += bytes.length;
    if (offset >= total) break;
  }
  return Buffer.concat(parts);
}

describe.skipIf(!ffmpeg.path)('recordings on real Chromium', () => {
  it('publishes a recording ffprobe reads, downloadable by ranges, whose URL expires', async () => {
    const { id } = (await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } }))
      .body.data;
    await api('POST', '/tools/navigate', { body: { session_id: id, url: `${site.origin}/` } });
    await new Promise((r) => setTimeout(r, 2500));
    expect((await api('GET', `/sessions/${id}/recordings`)).body.data).toEqual([]);
    await api('DELETE', `/sessions/${id}`);
    expect((await api('GET', `/sessions/${id}/recordings`)).body.data).toEqual([]);
    await emu.admin.advanceClock(3000);
    const recordings = (await api('GET', `/sessions/${id}/recordings`)).body.data;
    expect(recordings).toHaveLength(1);
    const [recording] = recordings;
    expect(recording.is_primary).toBe(true);
    expect(recording.size_bytes).toBeGreaterThan(0);
    expect(recording.duration_seconds).toBeGreaterThan(0);

    const head = await fetch(recording.video_url, { method: 'HEAD' });
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    expect(Number(head.headers.get('content-length'))).toBe(recording.size_bytes);
    const video = await downloadInRanges(recording.video_url, 16 * 1024);
    expect(video.length).toBe(recording.size_bytes);
    const file = join(dir, 'recording.webm');
    writeFileSync(file, video);
    const probed = execFileSync(
      ffprobe as string,
      ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file],
      { encoding: 'utf8' },
    );
    expect(Number.parseFloat(probed)).toBeGreaterThan(0);

    await emu.admin.advanceClock(10 * 60_000 + 1000);
    const expired = await fetch(recording.video_url);
    expect(expired.status).toBe(403);
    expect((await expired.json()).error).toMatch(/expired/);
  });
});
