/** `GET /sessions/{id}/recordings`: published once a session ends; URLs live ~10 minutes. */
import type { Writable } from 'node:stream';
import type { CallOptions } from '../../http/call-options.js';
import { zod } from '../../http/lazy-schema.js';
import { idSegment } from '../../http/path.js';
import { poll } from '../../http/polling.js';
import { Resource } from '../../http/resource.js';
import { type Recording, RecordingSchema } from '../schemas/recordings.js';
import {
  type DownloadedRecording,
  type DownloadOptions,
  downloadRecordings,
  type StreamedRecording,
} from './recording-download.js';

export interface WaitForPublishedOptions extends CallOptions {
  /** Milliseconds for the whole wait. Default 120000; 0 waits forever. */
  timeout?: number | undefined;
  /** Pause between polls in ms. Default 2000. */
  intervalMs?: number | undefined;
}

export interface DownloadWhenPublishedOptions
  extends Omit<DownloadOptions, 'timeout'>,
    Pick<WaitForPublishedOptions, 'intervalMs'> {
  /**
   * Milliseconds for the wait and the download together. Default 120000; 0 waits forever.
   * The download always gets at least one second, however long the wait took.
   */
  timeout?: number | undefined;
}

/** The least a download is given after a long wait for publication. */
const MIN_DOWNLOAD_MS = 1_000;

export class Recordings extends Resource {
  /** Empty while the session runs. `video_url`s expire: list again right before playing. */
  async list(sessionId: string, opts: CallOptions = {}): Promise<Recording[]> {
    const what = 'recordings.list';
    return this.transport.request({
      ...opts,
      what,
      method: 'GET',
      path: `/sessions/${idSegment(what, 'sessionId', sessionId)}/recordings`,
      schema: zod().array(RecordingSchema),
    });
  }

  /** Polls `list()` until the session's recordings are published (a non-empty list). */
  async waitForPublished(
    sessionId: string,
    options: WaitForPublishedOptions = {},
  ): Promise<Recording[]> {
    idSegment('recordings.waitForPublished', 'sessionId', sessionId);
    return poll((opts) => this.list(sessionId, opts), {
      what: `recordings.waitForPublished(${sessionId})`,
      signal: options.signal,
      timeout: options.timeout ?? 120_000,
      intervalMs: options.intervalMs ?? 2000,
      isDone: (recordings) => recordings.length > 0,
    });
  }

  /**
   * Recordings after teardown in one call: waits until the session's recordings are published
   * (they appear only after it ends), then streams them to `dir` as `download()` does, all
   * under one `timeout`.
   */
  async downloadWhenPublished(
    sessionId: string,
    target: { dir: string },
    options: DownloadWhenPublishedOptions = {},
  ): Promise<DownloadedRecording[]> {
    idSegment('recordings.downloadWhenPublished', 'sessionId', sessionId);
    const { timeout = 120_000, intervalMs, ...download } = options;
    const started = Date.now();
    await this.waitForPublished(sessionId, { signal: options.signal, timeout, intervalMs });
    const left = timeout === 0 ? 0 : Math.max(MIN_DOWNLOAD_MS, timeout - (Date.now() - started));
    return this.download(sessionId, target, { ...download, timeout: left });
  }

  /**
   * Streams recordings to `dir` (one file each, `<sessionId>-<recordingId>.<ext>`, written
   * under a temporary name and renamed when complete) or to one writable `stream` (one
   * recording: `recordingId`, else the primary one; the stream is ended). A `video_url` that
   * has expired, or answers 403/404/410, is replaced by listing again, once.
   */
  download(
    sessionId: string,
    target: { dir: string },
    options?: DownloadOptions,
  ): Promise<DownloadedRecording[]>;
  download(
    sessionId: string,
    target: { stream: NodeJS.WritableStream | Writable },
    options?: DownloadOptions,
  ): Promise<StreamedRecording[]>;
  async download(
    sessionId: string,
    target: { dir: string } | { stream: NodeJS.WritableStream | Writable },
    options: DownloadOptions = {},
  ): Promise<StreamedRecording[]> {
    idSegment('recordings.download', 'sessionId', sessionId);
    return downloadRecordings(
      { transport: this.transport, list: (opts) => this.list(sessionId, opts) },
      sessionId,
      target,
      options,
    );
  }
}
