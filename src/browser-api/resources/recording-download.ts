/**
 * Streaming recording downloads through undici's `stream()`. A video is never buffered: to a
 * dir, `transport.download` writes the body to a temporary file (opened only for a 2xx) that is
 * renamed when complete, so a reader never sees half a video under the final name; to a
 * stream, `transport.streamTo` writes the body into it. Signed
 * URLs live ~10 minutes, so an expired one (by its `video_url_expires_at`, or a 403/404/410
 * from the storage host) is replaced by listing again, once per recording. Neither sends the
 * Authorization header to a signed URL.
 */
import type { Writable } from 'node:stream';
import { type CallOptions, callScope } from '../../http/call-options.js';
import { isApiError, RemoteBrowserError } from '../../http/errors.js';
import { nodeCrypto, nodeFsPromises, nodePath } from '../../http/node-builtins.js';
import type { DownloadResult, Transport } from '../../http/transport.js';
import type { Recording } from '../schemas/recordings.js';

export interface DownloadProgress {
  recordingId: string;
  receivedBytes: number;
  /** From Content-Length, else the recording's `size_bytes`. */
  totalBytes?: number | undefined;
}

export interface DownloadOptions extends CallOptions {
  /** Download only this recording. Default: all of them to a dir; the primary one to a stream. */
  recordingId?: string | undefined;
  /** Called for every chunk received. */
  onProgress?: ((progress: DownloadProgress) => void) | undefined;
  /** Milliseconds for the whole download, listing included. Default 600000; 0 for none. */
  timeout?: number | undefined;
  /**
   * Largest recording accepted, in bytes: a longer body (a server that streams forever) fails
   * with a ResponseTooLargeError and leaves no file. Default: the recording's `size_bytes`
   * plus 10%, and at least 1 MiB more.
   */
  maxBytes?: number | undefined;
}

export interface StreamedRecording {
  recordingId: string;
  /** The listing entry whose URL was used (the fresh one after a re-list). */
  recording: Recording;
  bytes: number;
  contentType: string | undefined;
}

export interface DownloadedRecording extends StreamedRecording {
  /** Absolute path of the complete file. */
  path: string;
}

type Target = { dir: string } | { stream: NodeJS.WritableStream | Writable };

interface Source {
  transport: Transport;
  list(opts: CallOptions): Promise<Recording[]>;
}

/** Statuses storage hosts use for an expired or revoked signed URL. */
const EXPIRED_STATUSES = new Set([403, 404, 410]);
/** A URL this close to expiry is re-listed before use rather than failing mid-download. */
const EXPIRY_MARGIN_MS = 5_000;

const EXTENSIONS: Record<string, string> = {
  'video/webm': 'webm',
  'video/mp4': 'mp4',
  'video/x-matroska': 'mkv',
  'video/quicktime': 'mov',
  'video/ogg': 'ogv',
  'application/octet-stream': 'bin',
};

/** `video/webm; codecs=vp8` → `webm`; an unknown `video/x-foo` → `x-foo`; nothing → `bin`. */
export function extensionFor(contentType: string | undefined): string {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const known = EXTENSIONS[type];
  if (known) return known;
  const subtype = /^[a-z]+\/([a-z0-9.+-]+)$/.exec(type)?.[1];
  return subtype && /^[a-z0-9-]{1,12}$/.test(subtype) ? subtype : 'bin';
}

/**
 * `id` as part of a file name: unsafe characters become `_`, and when that changed anything, a
 * short hash of the raw id follows (`r/1` → `r_1-<8 hex>`), so ids that differ only in unsafe
 * characters never share a file name and never replace each other's recording.
 */
function fileSafe(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9._-]/g, '_');
  if (safe === id) return id;
  return `${safe}-${nodeCrypto().createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
}

function header(
  response: { headers: DownloadResult['headers'] },
  name: string,
): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The default `maxBytes` of one recording: its `size_bytes` with a margin. */
function sizeLimit(recording: Recording): number {
  return recording.size_bytes + Math.max(Math.ceil(recording.size_bytes / 10), 1024 * 1024);
}

function expired(recording: Recording): boolean {
  return Date.parse(recording.video_url_expires_at) <= Date.now() + EXPIRY_MARGIN_MS;
}

export async function downloadRecordings(
  source: Source,
  sessionId: string,
  target: Target,
  options: DownloadOptions,
): Promise<StreamedRecording[]> {
  const what = `recordings.download(${sessionId})`;
  const scope = callScope(options, 600_000);
  const call = { signal: scope.signal };
  try {
    const listed = await source.list(call);
    const chosen = choose(what, listed, target, options.recordingId);
    const relist = async (id: string): Promise<Recording> => {
      const fresh = (await source.list(call)).find((r) => r.id === id);
      if (!fresh) throw new RemoteBrowserError(`${what}: recording ${id} is no longer listed`);
      return fresh;
    };
    const out: StreamedRecording[] = [];
    for (const first of chosen) {
      let recording = expired(first) ? await relist(first.id) : first;
      let refreshed = recording !== first;
      // An expired or revoked signed URL fails before any byte: list again, once.
      for (;;) {
        try {
          out.push(
            await save(what, sessionId, recording, source.transport, target, options, scope.signal),
          );
          break;
        } catch (error) {
          if (refreshed || !isApiError(error) || !EXPIRED_STATUSES.has(error.status)) throw error;
          recording = await relist(recording.id);
          refreshed = true;
        }
      }
    }
    return out;
  } catch (error) {
    if (scope.signal.aborted) throw scope.abortError(what);
    throw error;
  } finally {
    scope.dispose();
  }
}

function choose(
  what: string,
  listed: Recording[],
  target: Target,
  recordingId?: string,
): Recording[] {
  if (listed.length === 0) {
    throw new RemoteBrowserError(
      `${what}: no recordings are published yet (they appear after the session ends; wait with recordings.waitForPublished())`,
    );
  }
  if (recordingId !== undefined) {
    const match = listed.find((r) => r.id === recordingId);
    if (!match)
      throw new RemoteBrowserError(`${what}: the session has no recording ${recordingId}`);
    return [match];
  }
  if ('stream' in target) return [listed.find((r) => r.is_primary) ?? (listed[0] as Recording)];
  return listed;
}

async function save(
  what: string,
  sessionId: string,
  recording: Recording,
  transport: Transport,
  target: Target,
  options: DownloadOptions,
  signal: AbortSignal,
): Promise<StreamedRecording | DownloadedRecording> {
  const progress = (receivedBytes: number, contentLength: number | undefined) =>
    options.onProgress?.({
      recordingId: recording.id,
      receivedBytes,
      totalBytes: contentLength ?? recording.size_bytes,
    });
  const maxBytes = options.maxBytes ?? sizeLimit(recording);
  if ('stream' in target) {
    const got = await transport.streamTo(
      { url: recording.video_url, what, signal, onData: progress, maxBytes },
      () => target.stream,
    );
    const contentType = header(got, 'content-type');
    return { recordingId: recording.id, recording, contentType, bytes: got.bytes };
  }
  const { join, resolve } = nodePath();
  const { mkdir, rename, rm } = nodeFsPromises();
  const dir = resolve(target.dir);
  await mkdir(dir, { recursive: true });
  const base = `${fileSafe(sessionId)}-${fileSafe(recording.id)}`;
  // The extension comes from the Content-Type, known once the download has begun.
  const temp = join(dir, `.${base}.${nodeCrypto().randomUUID().slice(0, 8)}.part`);
  try {
    const got = await transport.download({
      url: recording.video_url,
      what,
      signal,
      path: temp,
      onData: progress,
      maxBytes,
    });
    const contentType = header(got, 'content-type');
    const path = join(dir, `${base}.${extensionFor(contentType)}`);
    await rename(temp, path);
    return { recordingId: recording.id, recording, contentType, bytes: got.bytes, path };
  } catch (error) {
    await rm(temp, { force: true });
    throw error instanceof Error && error.name === 'AbortError' ? error : wrap(what, error);
  }
}

function wrap(what: string, error: unknown): unknown {
  if (error instanceof RemoteBrowserError) return error;
  return new RemoteBrowserError(
    `${what}: writing the recording failed: ${(error as Error).message}`,
    {
      cause: error,
    },
  );
}
