/**
 * The two sides of a P5 download, shared by the bench's child processes: A, the library's
 * `recordings.download()`; B, a raw stream copy (list, then undici `request` of the signed URL
 * piped to a file). Each deletes its file; the library side returns the bytes it wrote.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import type { BrowserApi } from '../src/index.js';

export function downloadSides(api: BrowserApi, sessionId: string, dir: string) {
  return {
    library: async (): Promise<number> => {
      const [file] = await api.sessions.recordings.download(sessionId, { dir });
      if (!file) throw new Error('library download returned no file');
      await rm(file.path, { force: true });
      return file.bytes;
    },
    raw: async (): Promise<void> => {
      const [recording] = await api.sessions.recordings.list(sessionId);
      if (!recording?.video_url) throw new Error('no recording to copy');
      const path = join(dir, 'raw.webm');
      const res = await request(recording.video_url);
      await pipeline(res.body, createWriteStream(path));
      await rm(path, { force: true });
    },
  };
}
