/**
 * Recordings after teardown: they are published only after the session ends and their
 * `video_url` expires in about 10 minutes, so the download waits for publication and streams
 * to disk (BrowserApi re-lists when a URL has expired).
 */
import type { BrowserApi } from '../browser-api/index.js';

export interface RecordingDownload {
  sessionId: string;
  /** Absolute paths of the downloaded files. */
  files: string[];
}

export async function downloadRecordings(
  api: BrowserApi,
  sessionId: string,
  dir: string,
  timeout: number,
): Promise<RecordingDownload> {
  const downloaded = await api.sessions.recordings.downloadWhenPublished(
    sessionId,
    { dir },
    { timeout },
  );
  return { sessionId, files: downloaded.map((d) => d.path) };
}

/** A promise settled later, whose rejection is never "unhandled" until someone awaits it. */
export function deferred<T>(): {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}
