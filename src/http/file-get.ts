/**
 * A GET whose body goes straight into a file through a fixed ring of reused buffers: how the
 * transport downloads a recording when the caller gave no dispatcher of its own (issue 14, P5).
 *
 * Why not undici: every socket read reaches JavaScript as a new Buffer (up to 64 KB) that lives
 * until V8 collects it, and V8 collects such external memory when about 64 MB of it has piled
 * up. A 200 MB download through undici, or through `node:http`, so peaks 50–65 MB above where
 * it started, however promptly the consumer writes each chunk. With `onread`, Node reads into
 * buffers we hand it: eight of 64 KB here, each written to the file at its own offset and read
 * into again once written. The same download peaks ~9 MB above its start, and runs faster.
 *
 * HTTP/1.1, one request per connection (`connection: close`): the status line, the headers and
 * a Content-Length, chunked or close-delimited body, strictly parsed; 1xx heads are skipped.
 * A non-2xx response's body is kept in memory (its first 64 KB) for the error, and no file is
 * opened. Redirects are not followed (as undici's `request`): a 3xx is the caller's error.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Socket } from 'node:net';

export interface FileGetOptions {
  url: URL;
  headers: Record<string, string>;
  /** Created, or truncated, once a 2xx head has arrived. */
  path: string;
  signal: AbortSignal;
  /** After each piece of the body is read: bytes so far, and the Content-Length if any. */
  onData?: ((receivedBytes: number, contentLength: number | undefined) => void) | undefined;
  /** A socket silent this long fails the GET (undici's bodyTimeout). Default 300000. */
  idleTimeoutMs?: number | undefined;
}

export type ResponseHeaders = Record<string, string | string[] | undefined>;

export interface FileGetResult {
  status: number;
  headers: ResponseHeaders;
  /** Body bytes written to the file; 0 and no file when the status is not 2xx. */
  bytes: number;
  /** The start of a non-2xx body, decoded as UTF-8; undefined for a 2xx. */
  errorBody?: string | undefined;
}

/** Why a GET failed without a complete response; `requestSent` as `ConnectionError`'s. */
export class FileGetError extends Error {
  override name = 'FileGetError';
  constructor(
    message: string,
    readonly requestSent: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const SLOTS = 8;
const SLOT_BYTES = 64 * 1024;
/** As Node's and undici's default limit on a response head. */
const MAX_HEAD_BYTES = 16 * 1024;
const MAX_ERROR_BODY = 64 * 1024;
const MAX_CHUNK_LINE = 1024;

type Framing =
  | { kind: 'length'; remaining: number }
  | { kind: 'close' }
  | {
      kind: 'chunked';
      state: 'size' | 'data' | 'data-end' | 'trailers';
      line: string;
      remaining: number;
    };

/** The parsed head of a response. */
interface Head {
  status: number;
  headers: ResponseHeaders;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** Parses `HTTP/1.1 200 OK\r\nname: value...` (without the blank line). Throws on anything else. */
export function parseHead(text: string): Head {
  const lines = text.split('\r\n');
  const statusLine = /^HTTP\/1\.[01] (\d{3})(?: [^\r\n]*)?$/.exec(lines[0] ?? '');
  if (!statusLine)
    throw new Error(`not an HTTP/1.x status line: ${JSON.stringify(lines[0]?.slice(0, 40))}`);
  const headers: ResponseHeaders = {};
  for (const line of lines.slice(1)) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!m) throw new Error(`malformed response header line: ${JSON.stringify(line.slice(0, 40))}`);
    const name = (m[1] as string).toLowerCase();
    const value = m[2] as string;
    const prior = headers[name];
    headers[name] =
      prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  return { status: Number(statusLine[1]), headers };
}

/** How the body of a response with this head ends (RFC 9112 §6.3, for a GET). */
export function framingOf(head: Head): Framing {
  if (head.status === 204 || head.status === 304) return { kind: 'length', remaining: 0 };
  const te = head.headers['transfer-encoding'];
  if (te !== undefined) {
    const codings = [te]
      .flat()
      .join(',')
      .split(',')
      .map((c) => c.trim().toLowerCase());
    // A body whose last coding is not chunked ends when the connection closes.
    return codings.at(-1) === 'chunked'
      ? { kind: 'chunked', state: 'size', line: '', remaining: 0 }
      : { kind: 'close' };
  }
  const cl = head.headers['content-length'];
  if (cl === undefined) return { kind: 'close' };
  const values = new Set(
    [cl]
      .flat()
      .join(',')
      .split(',')
      .map((v) => v.trim()),
  );
  const [only] = values;
  if (values.size !== 1 || !only || !/^\d{1,15}$/.test(only)) {
    throw new Error(`invalid Content-Length: ${JSON.stringify([cl].flat().join(', '))}`);
  }
  return { kind: 'length', remaining: Number(only) };
}

/**
 * Sends the GET and writes a 2xx body to `options.path`. Resolves once every byte is on disk
 * and the file is closed; rejects with a `FileGetError` (or the signal's reason) otherwise,
 * after closing the socket and the file; the file system's own error when opening or writing
 * the file failed. Removing a partial file is the caller's business.
 */
export function getToFile(options: FileGetOptions): Promise<FileGetResult> {
  const { url, signal } = options;
  if (signal.aborted) return Promise.reject(signal.reason);
  const net = process.getBuiltinModule('node:net');
  const tls = process.getBuiltinModule('node:tls');
  const { open } = process.getBuiltinModule('node:fs/promises');
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (secure ? 443 : 80));

  return new Promise<FileGetResult>((resolve, reject) => {
    const free: Buffer[] = Array.from({ length: SLOTS }, () => Buffer.allocUnsafe(SLOT_BYTES));
    /** Writes in flight per buffer: a buffer is read into again only when it has none. */
    const busy = new Map<Buffer, number>();
    let paused = false;
    let settled = false;
    let connected = false;
    let head = Buffer.alloc(0);
    let response: Head | undefined;
    let framing: Framing | undefined;
    let contentLength: number | undefined;
    let received = 0;
    let done = false;
    let opening: Promise<FileHandle> | undefined;
    let position = 0;
    let errorBody: Buffer[] | undefined;
    let errorBytes = 0;

    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      signal.removeEventListener('abort', onAbort);
      // FileHandle.close() waits for the writes in flight. The caller removes the file.
      void (opening ?? Promise.resolve(undefined))
        .then((handle) => handle?.close())
        .catch(() => {})
        .finally(() => reject(error));
    };
    const onAbort = () => fail(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });

    const finish = () => {
      done = true;
      socket.destroy();
      if (settled) return;
      const status = response?.status ?? 0;
      const headers = response?.headers ?? {};
      if (errorBody) {
        settled = true;
        signal.removeEventListener('abort', onAbort);
        resolve({
          status,
          headers,
          bytes: 0,
          errorBody: Buffer.concat(errorBody).toString('utf8'),
        });
        return;
      }
      // A body of zero bytes still leaves an (empty) file.
      (opening ?? openFile())
        .then(async (handle) => {
          await handle.close(); // after the writes in flight
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          resolve({ status, headers, bytes: received });
        })
        .catch((error: unknown) => fail(error));
    };

    const openFile = () => {
      const opened = open(options.path, 'w');
      opening = opened;
      opened.catch(fail);
      return opened;
    };

    const release = (buf: Buffer) => {
      const left = (busy.get(buf) ?? 1) - 1;
      if (left > 0) {
        busy.set(buf, left);
        return;
      }
      busy.delete(buf);
      free.push(buf);
      if (paused && !settled && !done) {
        paused = false;
        socket.resume();
      }
    };

    /** One piece of the body, `buf[start, end)`: to the file, or to the error body. */
    const body = (buf: Buffer, start: number, end: number) => {
      if (end <= start) return;
      received += end - start;
      if (errorBody) {
        if (errorBytes < MAX_ERROR_BODY) {
          const piece = buf.subarray(start, Math.min(end, start + MAX_ERROR_BODY - errorBytes));
          errorBody.push(Buffer.from(piece));
          errorBytes += piece.length;
        }
        return;
      }
      const at = position;
      position += end - start;
      busy.set(buf, (busy.get(buf) ?? 0) + 1);
      (opening ?? openFile())
        .then((handle) => handle.write(buf, start, end - start, at))
        .then(() => release(buf), fail);
      try {
        options.onData?.(received, contentLength);
      } catch (error) {
        fail(error);
      }
    };

    /** Consumes `buf[0, n)`: the head, then body pieces (written, or kept for the error). */
    const consume = (n: number, buf: Buffer): void => {
      let i = 0;
      while (i < n && !done && !settled) {
        if (!response) {
          // Heads are copied (they are small); the body never is.
          const end = Math.min(n, i + MAX_HEAD_BYTES);
          head = Buffer.concat([head, buf.subarray(i, end)]);
          const at = head.indexOf(CRLF2);
          if (at < 0) {
            if (head.length >= MAX_HEAD_BYTES)
              throw new Error(`response head over ${MAX_HEAD_BYTES / 1024} KB`);
            i = end;
            continue;
          }
          const parsed = parseHead(head.subarray(0, at).toString('latin1'));
          // Bytes of this read that came after the head.
          i = end - (head.length - (at + 4));
          head = Buffer.alloc(0);
          if (parsed.status >= 100 && parsed.status < 200) {
            if (parsed.status === 101) throw new Error('the server switched protocols (101)');
            continue;
          }
          response = parsed;
          framing = framingOf(parsed);
          if (framing.kind === 'length') contentLength = framing.remaining;
          if (parsed.status < 200 || parsed.status >= 300) errorBody = [];
          else void openFile();
          if (framing.kind === 'length' && framing.remaining === 0) finish();
          continue;
        }
        const f = framing as Framing;
        if (f.kind === 'close') {
          body(buf, i, n);
          i = n;
        } else if (f.kind === 'length') {
          const take = Math.min(n - i, f.remaining);
          body(buf, i, i + take);
          i += take;
          f.remaining -= take;
          if (f.remaining === 0) finish();
        } else {
          i = chunked(f, buf, i, n);
        }
        if (errorBody && errorBytes >= MAX_ERROR_BODY && !done) finish();
      }
    };

    /** One step of a chunked body from `buf[i, n)`; returns where it stopped. */
    const chunked = (
      f: Extract<Framing, { kind: 'chunked' }>,
      buf: Buffer,
      i: number,
      n: number,
    ) => {
      if (f.state === 'data') {
        const take = Math.min(n - i, f.remaining);
        body(buf, i, i + take);
        f.remaining -= take;
        if (f.remaining === 0) {
          f.state = 'data-end';
          f.line = '';
        }
        return i + take;
      }
      // size, data-end and trailers read lines.
      // Only this read's bytes: past n the buffer holds an earlier read's.
      const lf = buf.subarray(i, n).indexOf(10);
      const stop = lf < 0 ? n : i + lf + 1;
      f.line += buf.toString('latin1', i, stop);
      if (f.line.length > MAX_CHUNK_LINE) throw new Error('chunked body: a line over 1 KB');
      if (!f.line.endsWith('\n')) return stop;
      if (!f.line.endsWith('\r\n')) throw new Error('chunked body: a line not ended by CRLF');
      const line = f.line.slice(0, -2);
      f.line = '';
      if (f.state === 'data-end') {
        if (line !== '') throw new Error('chunked body: no CRLF after a chunk');
        f.state = 'size';
      } else if (f.state === 'size') {
        const m = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/.exec(line);
        if (!m)
          throw new Error(`chunked body: bad chunk size ${JSON.stringify(line.slice(0, 20))}`);
        f.remaining = Number.parseInt(m[1] as string, 16);
        f.state = f.remaining === 0 ? 'trailers' : 'data';
      } else if (line === '') {
        finish();
      }
      return stop;
    };

    const nextBuffer = () => free.pop() ?? Buffer.allocUnsafe(SLOT_BYTES);
    const onread = {
      buffer: nextBuffer,
      callback: (n: number, buf: Buffer): boolean => {
        try {
          consume(n, buf);
        } catch (error) {
          fail(new FileGetError((error as Error).message, true));
          return false;
        }
        if (!busy.has(buf)) free.push(buf);
        // The buffer for the next read is taken right after this returns: pause while only that
        // one is free, and resume when a write gives one back.
        if (free.length <= 1 && !done && !settled) {
          paused = true;
          return false;
        }
        return true;
      },
    };

    const connectOptions = { host, port, onread };
    const socket: Socket = secure
      ? tls.connect({
          ...connectOptions,
          ALPNProtocols: ['http/1.1'],
          ...(net.isIP(host) ? {} : { servername: host }),
        })
      : net.connect(connectOptions);
    const idleMs = options.idleTimeoutMs ?? 300_000;
    socket.setTimeout(idleMs, () => fail(new FileGetError(`no data for ${idleMs} ms`, connected)));
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      connected = true;
      const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
      for (const [name, value] of Object.entries(options.headers)) lines.push(`${name}: ${value}`);
      lines.push('connection: close', '', '');
      socket.write(lines.join('\r\n'));
    });
    socket.on('error', (error) =>
      fail(new FileGetError(error.message, connected, { cause: error })),
    );
    socket.on('close', () => {
      if (done || settled) return;
      const f = framing;
      if (response && f?.kind === 'close') finish();
      else if (!response)
        fail(new FileGetError('the connection closed before a response', connected));
      else {
        const expected = contentLength === undefined ? '' : ` of ${contentLength}`;
        fail(
          new FileGetError(`the connection closed after ${received}${expected} body bytes`, true),
        );
      }
    });
  });
}
