/**
 * How a download's bytes reach a staged file on the client, each way capped at `maxBytes` (over
 * it the transfer fails with DownloadTooLargeError and the partial file is removed):
 * - a response body over CDP (`Fetch.takeResponseBodyAsStream` + `IO.read`, a pull stream:
 *   the client holds one chunk at a time whatever the size);
 * - a response the client served itself (the tunnel), as a Node stream;
 * - a `data:` URL, decoded in-process;
 * - a `blob:` URL, which lives only in the frame that made it: read in THAT frame (never
 *   another tab), in an isolated world (the page's own `fetch` cannot answer), with a timeout.
 */

import type { Protocol } from 'devtools-protocol';
import { createDebug } from '../http/debug.js';
import { RemoteBrowserError } from '../http/errors.js';
import { nodeFsPromises } from '../http/node-builtins.js';
import type { CdpSession } from './cdp-channel.js';
import type { RemoteCdp } from './remote-cdp.js';
import type { TargetSession } from './target-session.js';

const debug = createDebug('remote-cdp:downloads');

/**
 * Bytes asked of the browser per `IO.read`, and how many reads are on the wire at once. A chunk
 * is small enough that its base64 text (and the message around it) stays below V8's
 * large-object size (128 KB): such strings die young, in the scavenger, so the client's memory
 * stays flat whatever the download's size. Larger chunks land in large-object space, which only
 * a full collection frees: 1 MB chunks grew the client's RSS by ~55 MB at 50 MB and ~95 MB at
 * 200 MB (bench P9). The reads in flight keep the browser's pipe full over a round trip
 * (1 MB on the wire, what one read of 1 MB asked for); Chromium answers them in order.
 */
const CHUNK_BYTES = 64 * 1024;
const READS_IN_FLIGHT = 16;

/** How long a page has to hand over the bytes of a `blob:` URL. */
export const BLOB_READ_TIMEOUT_MS = 15_000;

/** A download whose bytes did not reach the client (the message says why). */
export class DownloadTransferError extends RemoteBrowserError {
  override name = 'DownloadTransferError';
}

/** A download larger than `maxDownloadBytes`: failed, its partial file removed. */
export class DownloadTooLargeError extends DownloadTransferError {
  override name = 'DownloadTooLargeError';
  readonly maxBytes: number;
  constructor(url: string, maxBytes: number) {
    super(
      `download of ${url} is larger than maxDownloadBytes (${maxBytes} bytes): failed and its partial file removed; raise maxDownloadBytes to receive it (docs/remote.md)`,
    );
    this.maxBytes = maxBytes;
  }
}

/** Writes `chunks` to a new file at `path`, at most `maxBytes`; removes it on any failure. */
export async function stageChunks(
  chunks: AsyncIterable<Buffer>,
  path: string,
  url: string,
  maxBytes: number,
): Promise<void> {
  const file = await nodeFsPromises().open(path, 'wx');
  let size = 0;
  try {
    for await (const chunk of chunks) {
      size += chunk.length;
      if (size > maxBytes) throw new DownloadTooLargeError(url, maxBytes);
      if (chunk.length > 0) await file.write(chunk);
    }
  } catch (error) {
    await file.close().catch(() => {});
    await nodeFsPromises()
      .unlink(path)
      .catch(() => {});
    if (error instanceof DownloadTransferError) throw error;
    throw new DownloadTransferError(`download of ${url} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  await file.close();
}

/**
 * The chunks of a CDP stream (`IO.read` until eof, READS_IN_FLIGHT at once, yielded in order);
 * closes the stream however it ends.
 */
export async function* cdpStream(session: CdpSession, handle: string): AsyncGenerator<Buffer> {
  const reads: Array<Promise<Protocol.IO.ReadResponse>> = [];
  const ask = () => {
    const read = session.send('IO.read', { handle, size: CHUNK_BYTES });
    // Reads still on the wire when the stream ends early settle unobserved.
    read.catch(() => {});
    reads.push(read);
  };
  try {
    while (reads.length < READS_IN_FLIGHT) ask();
    for (;;) {
      const chunk = await (reads.shift() as Promise<Protocol.IO.ReadResponse>);
      if (chunk.data.length > 0)
        yield Buffer.from(chunk.data, chunk.base64Encoded ? 'base64' : 'utf8');
      if (chunk.eof) return;
      ask();
    }
  } finally {
    await session.send('IO.close', { handle }).catch(() => {});
  }
}

/** The bytes of a `data:` URL (fetch() decodes it in-process, no network). */
export async function* dataUrlChunks(url: string): AsyncGenerator<Buffer> {
  const response = await fetch(url);
  const bytes = Buffer.from(await response.arrayBuffer());
  yield bytes;
}

/**
 * The bytes of the `blob:` URL `url` made in frame `frameId`: read in that frame only, in an
 * isolated world, within BLOB_READ_TIMEOUT_MS; written to `path` (at most `maxBytes`).
 */
export async function stageBlobUrl(
  cdp: RemoteCdp,
  { frameId, url, suggestedFilename }: { frameId: string; url: string; suggestedFilename: string },
  path: string,
  maxBytes: number,
  timeoutMs = BLOB_READ_TIMEOUT_MS,
): Promise<void> {
  const session = await sessionOfFrame(cdp, frameId);
  if (!session) {
    throw new DownloadTransferError(
      `download of a blob: URL (${suggestedFilename}): the frame that made it is gone, so its bytes stayed on the remote machine`,
    );
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DownloadTransferError(
            `download of a blob: URL: its page did not hand over the bytes within ${timeoutMs} ms`,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    const read = readBlob(session, frameId, url, suggestedFilename, path, maxBytes);
    read.catch(() => {});
    await Promise.race([timeout, read]);
  } finally {
    clearTimeout(timer);
    // Detaching ends a read still running (its calls reject), so nothing outlives the timeout.
    await session.detach();
  }
}

async function readBlob(
  session: TargetSession,
  frameId: string,
  url: string,
  name: string,
  path: string,
  maxBytes: number,
): Promise<void> {
  const { executionContextId } = await session.send('Page.createIsolatedWorld', {
    frameId,
    worldName: 'remote-browser-download',
    grantUniveralAccess: false,
  });
  const evaluated = await session.send('Runtime.evaluate', {
    expression: `fetch(${JSON.stringify(url)}).then((r) => r.blob())`,
    contextId: executionContextId,
    awaitPromise: true,
  });
  const objectId = evaluated.exceptionDetails ? undefined : evaluated.result.objectId;
  if (!objectId) {
    throw new DownloadTransferError(
      `download of a blob: URL (${name}): the frame that made it no longer has it (revoked before its bytes could be read over CDP); see https://github.com/remote-browser/remote-browser/blob/main/docs/remote.md`,
    );
  }
  const { uuid } = await session.send('IO.resolveBlob', { objectId });
  await stageChunks(cdpStream(session, `blob:${uuid}`), path, url, maxBytes);
}

/** A session on the target that holds frame `frameId` (its own target, or the page it is in). */
async function sessionOfFrame(cdp: RemoteCdp, frameId: string): Promise<TargetSession | undefined> {
  const candidates = cdp.targets.has(frameId)
    ? [frameId]
    : [...cdp.targets.values()].filter((t) => t.type === 'page').map((t) => t.targetId);
  for (const targetId of candidates) {
    const { session, attached } = cdp.attach(targetId);
    const ok = await attached.then(
      () => true,
      (error: unknown) => {
        debug(`cannot attach to ${targetId}: ${(error as Error).message}`);
        return false;
      },
    );
    if (!ok) continue;
    if (targetId === frameId) return session;
    const { frameTree } = await session
      .send('Page.getFrameTree')
      .catch(() => ({ frameTree: undefined }));
    const holds = (tree: typeof frameTree): boolean =>
      tree !== undefined &&
      (tree.frame.id === frameId || (tree.childFrames ?? []).some((child) => holds(child)));
    if (holds(frameTree)) return session;
    await session.detach();
  }
  return undefined;
}
