/**
 * A GET's body streamed into a writable (recordings, signed file URLs): undici's `stream()`, the
 * sink opened only for a 2xx, every chunk through one counting writable (`countedSink`), the one
 * place for a size cap. `Transport.streamTo` and `download` call it.
 */
import type { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { type CallOptions, callScope } from './call-options.js';
import { createDebug } from './debug.js';
import { errorFromResponse, type ServiceName } from './error-mapping.js';
import { ConnectionError, ResponseTooLargeError } from './errors.js';
import { nodeFs, nodeStream } from './node-builtins.js';
import { parseBody, socketReason } from './response-body.js';
import { wasNeverSent } from './retry-policy.js';
import { loadUndici } from './undici.js';

const debug = createDebug('http');

export interface StreamSpec extends CallOptions {
  /** An absolute URL (e.g. a signed `video_url`) or a path under the API path. */
  url: string;
  headers?: Record<string, string> | undefined;
  what: string;
}

export interface StreamToSpec extends StreamSpec {
  /** After each piece of the body: bytes so far, and the Content-Length if any. May throw. */
  onData?: ((receivedBytes: number, contentLength: number | undefined) => void) | undefined;
  /** Ms the body may stay silent before the GET fails (undici's `bodyTimeout`). Default 300000. */
  idleTimeout?: number | undefined;
  /**
   * Largest body accepted, in bytes: a Content-Length above it, or more bytes than it (a
   * server that streams forever), fails with a ResponseTooLargeError. Default: no limit.
   */
  maxBytes?: number | undefined;
}

export interface DownloadSpec extends StreamToSpec {
  /** The file the body goes to (created or truncated). Removing it on failure is the caller's. */
  path: string;
}

export interface DownloadResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

/** Where a stream goes: the transport resolves the URL and the headers it may carry. */
export interface StreamTarget {
  service: ServiceName;
  absolute: string;
  headers: Record<string, string>;
  /** The path its debug lines name. */
  logPath: string;
  dispatcher: Dispatcher | Promise<Dispatcher>;
}

/**
 * A GET's body written into the writable `open()` returns, through undici's `stream()`:
 * `open` is called once the response is a 2xx, so an error status (a 3xx included: redirects
 * are not followed) creates nothing and is thrown as its error, with the start of its body.
 * The body ends the writable; `spec.onData` sees the count. The `Authorization` header goes
 * only to this service's own origin, never to a signed URL. A failure of the writable (ENOSPC,
 * say) or of `onData` is that error; one of the connection is a `ConnectionError`.
 */
export async function streamTo(
  target: StreamTarget,
  spec: StreamToSpec,
  open: () => NodeJS.WritableStream | Writable,
): Promise<DownloadResult> {
  const { absolute, headers, logPath } = target;
  const { stream } = await loadUndici();
  const dispatcher = await target.dispatcher;
  const scope = callScope(spec, 0);
  if (scope.signal.aborted) {
    scope.dispose();
    throw scope.abortError(spec.what);
  }
  debug(`→ GET ${logPath} (download)`);
  let head: { status: number; headers: DownloadResult['headers'] } | undefined;
  let errorBody: Buffer[] = [];
  let sink: CountedSink | undefined;
  try {
    await stream(
      absolute,
      {
        method: 'GET',
        headers,
        signal: scope.signal,
        dispatcher,
        ...(spec.idleTimeout !== undefined && { bodyTimeout: spec.idleTimeout }),
      },
      ({ statusCode, headers: got }) => {
        head = { status: statusCode, headers: got };
        debug(`← ${statusCode} GET ${logPath} (download)`);
        if (statusCode >= 300) return errorBodyCollector((chunks) => (errorBody = chunks));
        const length = Number([got['content-length']].flat()[0]);
        const contentLength = Number.isFinite(length) && length >= 0 ? length : undefined;
        const onData = capped(spec);
        sink = countedSink(open(), (bytes) => onData?.(bytes, contentLength));
        return sink.writable;
      },
    );
  } catch (error) {
    if (scope.signal.aborted) throw scope.abortError(spec.what);
    if (sink?.failure !== undefined) throw sink.failure;
    if (head === undefined || head.status < 300) {
      const how = head ? 'failed mid-body' : 'failed without a response';
      throw new ConnectionError(`${spec.what}: GET ${logPath} ${how}: ${socketReason(error)}`, {
        cause: error,
        requestSent: head !== undefined || !wasNeverSent(error),
      });
    }
  } finally {
    scope.dispose();
  }
  if (head === undefined) throw new Error('unreachable: undici resolved without a response');
  if (head.status >= 300) {
    throw errorFromResponse({
      service: target.service,
      status: head.status,
      method: 'GET',
      path: logPath,
      body: parseBody(Buffer.concat(errorBody).toString('utf8')),
      headers: head.headers,
    });
  }
  return { status: head.status, headers: head.headers, bytes: sink?.bytes ?? 0 };
}

/**
 * `spec.onData` behind the download limit, which both download paths (the ring-buffer reader
 * and the undici pipe) call after every piece: past `spec.maxBytes` (or with a Content-Length
 * above it) it throws a ResponseTooLargeError, which fails the download.
 */
function capped(spec: StreamToSpec): StreamToSpec['onData'] {
  const max = spec.maxBytes;
  if (max === undefined) return spec.onData;
  return (received, contentLength) => {
    if (received > max || (contentLength !== undefined && contentLength > max)) {
      throw new ResponseTooLargeError(spec.what, max, 'maxBytes');
    }
    spec.onData?.(received, contentLength);
  };
}

/**
 * What a download's file stream takes before it says "wait": with the default 16 KB every 64 KB
 * chunk of the body paused the socket until its write returned (a 1 GB download ran at 0.6× a
 * raw stream copy, bench P5); 1 MB lets the stream batch chunks into one writev while the body
 * keeps coming.
 */
const FILE_WRITE_BUFFER_BYTES = 1024 * 1024;

/** A GET's body into the file `spec.path` (recordings), created only once the response is a 2xx. */
export function download(target: StreamTarget, spec: DownloadSpec): Promise<DownloadResult> {
  const file = () =>
    nodeFs().createWriteStream(spec.path, { highWaterMark: FILE_WRITE_BUFFER_BYTES });
  return streamTo(target, spec, file);
}

/** Of an error response's body, the start the error message needs. */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * The writable an error status's body goes to: keeps its first 64 KB, then stops the response
 * (its error is thrown from the head and this start; no need to wait for the rest).
 */
function errorBodyCollector(done: (chunks: Buffer[]) => void): Writable {
  const chunks: Buffer[] = [];
  let kept = 0;
  return new (nodeStream().Writable)({
    write(chunk: Buffer, _encoding, next) {
      const room = MAX_ERROR_BODY - kept;
      chunks.push(chunk.subarray(0, room));
      kept += Math.min(room, chunk.length);
      done(chunks);
      next(kept >= MAX_ERROR_BODY ? new Error('error body kept') : null);
    },
    final(next) {
      done(chunks);
      next();
    },
  });
}

/** A download's sink as `countedSink` builds it: the bytes it took, and what failed in it. */
interface CountedSink {
  writable: Writable;
  bytes: number;
  /** The sink's own error (ENOSPC, say) or the report's: the download throws it as it is. */
  failure: unknown;
}

/**
 * The one write path of a download: each chunk of the body is counted, reported, and written to
 * the sink with its backpressure; the end of the body ends the sink, and the download resolves
 * once the sink is finished (a file closed). A failed download destroys the sink.
 */
function countedSink(
  sink: NodeJS.WritableStream | Writable,
  report: (bytes: number) => void,
): CountedSink {
  const { Writable, finished } = nodeStream();
  const out: CountedSink = {
    bytes: 0,
    failure: undefined,
    writable: new Writable({
      write(chunk: Buffer, _encoding, next) {
        out.bytes += chunk.length;
        try {
          report(out.bytes);
        } catch (error) {
          out.failure ??= error;
          next(error as Error);
          return;
        }
        if (sink.write(chunk)) next();
        else sink.once('drain', () => next());
      },
      final(next) {
        // Its writable side only: a duplex given as the sink (a PassThrough) is read elsewhere.
        finished(sink as Writable, { readable: false }, (error) => next(error));
        sink.end();
      },
      destroy(error, next) {
        if (error) (sink as Writable).destroy?.();
        next(error);
      },
    }),
  };
  sink.on('error', (error: Error) => {
    out.failure ??= error;
    out.writable.destroy(error);
  });
  return out;
}
