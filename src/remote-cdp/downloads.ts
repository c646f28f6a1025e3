/**
 * Downloads of a remote browser, brought to the client over the CDP connection. The remote
 * browser saves a download on ITS disk; the client's library then looks for it on the client's
 * (Playwright copies from its artifacts folder, a Puppeteer user reads the `downloadPath`).
 *
 * How the bytes travel: a document response the browser will download (download-response.ts)
 * is paused at the Response stage on the browser-level session, its body read with
 * `Fetch.takeResponseBodyAsStream` + `IO.read` (a pull stream: memory stays at one chunk
 * whatever the size) into a staged file on the client, and only then handed to the browser,
 * emptied. So the bytes are never fetched again from Node (which would skip the session's proxy
 * and cookies), and by the time the browser names the download (`Browser.downloadWillBegin`)
 * they are on the client already. A `data:` URL carries its bytes in the event itself; a
 * `blob:` URL's live only in its page, which fetches it into a Blob that `IO.resolveBlob` +
 * `IO.read` stream out the same way (so a page that revokes the URL at once loses them).
 *
 * The browser names a download after its response, and the emptied one completes at once, so
 * the staged file cannot be moved into place before the library hears "completed": the library
 * side waits for `deliver()` (Playwright's Download methods) or the bridge places each file as
 * soon as the download is named (`placement`, Puppeteer's `downloadBehavior`).
 */
import { createDebug } from '../http/debug.js';
import { RemoteBrowserError } from '../http/errors.js';
import {
  nodeCrypto,
  nodeFs,
  nodeFsPromises,
  nodeOs,
  nodePath,
  nodeStream,
} from '../http/node-builtins.js';
import { emptiedHeaders, isDownloadResponse } from './download-response.js';
import type { PausedRequest, RemoteCdp } from './remote-cdp.js';
import { attachToTarget } from './target-session.js';

const debug = createDebug('remote-cdp:downloads');

/**
 * Bytes asked of the browser per `IO.read`: one chunk is all the client holds at a time. Bench
 * P9 (200 MB on a loaded 2-core machine): 256 KB halves the RSS growth but is slow enough that a
 * 200 MB download missed `waitForEvent('download')`'s 30 s; 4 MB is ~20% faster with twice the
 * growth (V8 collects the base64 strings late).
 */
const CHUNK_BYTES = 1024 * 1024;

/** What the download bridge needs of the browser-level session (a RemoteCdp). */
export type DownloadsHost = Pick<
  RemoteCdp,
  'send' | 'on' | 'intercept' | 'targets' | 'clientResponseSink'
>;

/** `Browser.downloadWillBegin`. */
export interface DownloadBegin {
  guid: string;
  url: string;
  frameId: string;
  suggestedFilename: string;
}

/** A download whose bytes did not reach the client (the message says why). */
export class DownloadTransferError extends RemoteBrowserError {
  override name = 'DownloadTransferError';
}

export interface RemoteDownloadsOptions {
  /**
   * `Browser.setDownloadBehavior`'s behavior for the remote browser's default context, which
   * also turns the download events on for this session. Playwright: `'allowAndName'`;
   * Puppeteer: the user's `downloadBehavior.policy`.
   */
  policy: 'allow' | 'allowAndName' | 'deny' | 'default';
  /**
   * Where a named download's file goes on the client as soon as the browser names it; nothing
   * (the default) keeps it staged until `deliver()` asks for it.
   */
  placement?: (begin: DownloadBegin) => Promise<string>;
}

/** A download the browser has named. */
interface Named {
  begin: DownloadBegin;
  /** The staged file with every byte; rejects when they did not all arrive. */
  staged: Promise<string>;
  canceled?: boolean;
}

interface Waiter {
  resolve(record: Named): void;
  reject(error: Error): void;
}

export class RemoteDownloads {
  readonly #host: DownloadsHost;
  readonly #staging: string;
  readonly #placement: RemoteDownloadsOptions['placement'];
  /** Bodies read before the browser named their download, by URL, oldest first. */
  readonly #captured = new Map<string, Promise<string>[]>();
  readonly #records = new Map<string, Named>();
  readonly #deliveries = new Map<string, Promise<void>>();
  readonly #waiters = new Map<string, Waiter[]>();
  readonly #stop: (() => void)[] = [];
  #uninterceptor: (() => Promise<void>) | undefined;
  #closed: Promise<void> | undefined;

  private constructor(host: DownloadsHost, staging: string, options: RemoteDownloadsOptions) {
    this.#host = host;
    this.#staging = staging;
    this.#placement = options.placement;
  }

  /** Starts bridging the browser's downloads; `close()` stops and removes what is staged. */
  static async start(
    host: DownloadsHost,
    options: RemoteDownloadsOptions,
  ): Promise<RemoteDownloads> {
    const staging = await nodeFsPromises().mkdtemp(
      nodePath().join(nodeOs().tmpdir(), 'remote-browser-downloads-'),
    );
    const downloads = new RemoteDownloads(host, staging, options);
    try {
      await downloads.#begin(options.policy);
    } catch (error) {
      await downloads.close();
      throw error;
    }
    return downloads;
  }

  async #begin(policy: RemoteDownloadsOptions['policy']): Promise<void> {
    this.#stop.push(
      this.#host.on('Browser.downloadWillBegin', (e: DownloadBegin) => this.#onNamed(e)),
      this.#host.on('Browser.downloadProgress', (e: { guid: string; state: string }) => {
        if (e.state === 'canceled') this.#canceled(e.guid);
      }),
    );
    // The remote path only receives the emptied files; the staging folder's name is as good
    // as any (Chromium creates it on the remote machine).
    await this.#host.send('Browser.setDownloadBehavior', {
      behavior: policy,
      ...(policy === 'allow' || policy === 'allowAndName' ? { downloadPath: this.#staging } : {}),
      eventsEnabled: true,
    });
    if (policy === 'deny' || policy === 'default') return;
    this.#host.clientResponseSink = (event, status, headers, body) =>
      this.#served(event, status, headers, body);
    this.#uninterceptor = await this.#host.intercept({
      patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Response' }],
      onPaused: (event) => this.#paused(event),
    });
  }

  /**
   * Puts the download's bytes at `destination` once they are all on the client (the same call
   * again returns the same promise). Rejects with DownloadTransferError when they are not.
   */
  deliver(guid: string, destination: string): Promise<void> {
    let delivered = this.#deliveries.get(guid);
    if (!delivered) {
      delivered = (async () => {
        const staged = await (await this.#named(guid)).staged;
        await nodeFsPromises().mkdir(nodePath().dirname(destination), { recursive: true });
        await nodeFsPromises()
          .rename(staged, destination)
          .catch(async (error: NodeJS.ErrnoException) => {
            if (error.code !== 'EXDEV') throw error;
            await nodeFsPromises().copyFile(staged, destination);
            await nodeFsPromises().unlink(staged);
          });
      })();
      delivered.catch(() => {});
      this.#deliveries.set(guid, delivered);
    }
    return delivered;
  }

  /** The reason the download's bytes did not reach the client, or undefined once they did. */
  async failure(guid: string): Promise<string | undefined> {
    try {
      const record = await this.#named(guid);
      await record.staged;
      return record.canceled ? 'canceled' : undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  /** Stops following downloads and removes every staged file. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      for (const stop of this.#stop.splice(0)) stop();
      this.#host.clientResponseSink = undefined;
      for (const waiters of this.#waiters.values())
        for (const w of waiters)
          w.reject(new DownloadTransferError('the browser disconnected before the download began'));
      this.#waiters.clear();
      await this.#uninterceptor?.().catch(() => {});
      await nodeFsPromises().rm(this.#staging, { recursive: true, force: true });
    })();
    return this.#closed;
  }

  /** The record of `guid` once the browser has named it. */
  #named(guid: string): Promise<Named> {
    const known = this.#records.get(guid);
    if (known) return Promise.resolve(known);
    if (this.#closed)
      return Promise.reject(
        new DownloadTransferError('the browser disconnected before the download began'),
      );
    return new Promise((resolve, reject) => {
      const list = this.#waiters.get(guid) ?? [];
      list.push({ resolve, reject });
      this.#waiters.set(guid, list);
    });
  }

  async #paused(event: PausedRequest): Promise<boolean> {
    if (!isDownloadResponse(event)) return false;
    let stream: string;
    try {
      ({ stream } = await this.#host.send<{ stream: string }>('Fetch.takeResponseBodyAsStream', {
        requestId: event.requestId,
      }));
    } catch (error) {
      debug(`cannot stream ${event.request.url}: ${(error as Error).message}`);
      return false;
    }
    const staged = this.#read((m, p) => this.#host.send(m, p), stream, event.request.url);
    staged.catch(() => {});
    this.#queue(event.request.url, staged);
    // Whatever arrived, the browser gets its response: a failed read fails the download on the
    // client side (failure()), as a network error would on a local browser.
    await staged.catch(() => {});
    await this.#host.send('Fetch.fulfillRequest', {
      requestId: event.requestId,
      responseCode: event.responseStatusCode,
      ...(event.responseStatusText ? { responsePhrase: event.responseStatusText } : {}),
      responseHeaders: emptiedHeaders(event.responseHeaders),
      body: '',
    });
    return true;
  }

  /**
   * A response the client served itself (an exposed host): when it is a download, its body is
   * already here, so it goes straight to a staged file and the browser gets it emptied.
   */
  async #served(
    event: PausedRequest,
    status: number,
    headers: { name: string; value: string }[],
    body: AsyncIterable<Buffer>,
  ): Promise<boolean> {
    const response = { ...event, responseStatusCode: status, responseHeaders: headers };
    if (!isDownloadResponse(response)) return false;
    const path = nodePath().join(this.#staging, `${nodeCrypto().randomUUID()}.part`);
    const staged = nodeStream()
      .promises.pipeline(nodeStream().Readable.from(body), nodeFs().createWriteStream(path))
      .then(
        () => path,
        (error: unknown) => {
          throw new DownloadTransferError(
            `download of ${event.request.url} failed while its bytes came from the client's network: ${(error as Error).message}`,
            { cause: error },
          );
        },
      );
    staged.catch(() => {});
    this.#queue(event.request.url, staged);
    await staged.catch(() => {});
    await this.#host.send('Fetch.fulfillRequest', {
      requestId: event.requestId,
      responseCode: status,
      responseHeaders: emptiedHeaders(headers),
      body: '',
    });
    return true;
  }

  #queue(url: string, staged: Promise<string>): void {
    const queue = this.#captured.get(url) ?? [];
    queue.push(staged);
    this.#captured.set(url, queue);
  }

  /** Reads a stream of the browser (`IO.read`) into a staged file; resolves with its path. */
  async #read(
    send: <T>(method: string, params?: object) => Promise<T>,
    stream: string,
    url: string,
  ): Promise<string> {
    const path = nodePath().join(this.#staging, `${nodeCrypto().randomUUID()}.part`);
    const file = await nodeFsPromises().open(path, 'w');
    try {
      for (;;) {
        const chunk = await send<{
          data: string;
          base64Encoded?: boolean;
          eof: boolean;
        }>('IO.read', { handle: stream, size: CHUNK_BYTES });
        if (chunk.data.length > 0)
          await file.write(Buffer.from(chunk.data, chunk.base64Encoded ? 'base64' : 'utf8'));
        if (chunk.eof) break;
      }
    } catch (error) {
      await nodeFsPromises()
        .unlink(path)
        .catch(() => {});
      throw new DownloadTransferError(
        `download of ${url} failed while its bytes came over CDP: ${(error as Error).message}`,
        { cause: error },
      );
    } finally {
      await file.close();
      await send('IO.close', { handle: stream }).catch(() => {});
    }
    return path;
  }

  #onNamed(begin: DownloadBegin): void {
    const staged = this.#source(begin);
    staged.catch(() => {});
    const record: Named = { begin, staged };
    this.#records.set(begin.guid, record);
    for (const waiter of this.#waiters.get(begin.guid) ?? []) waiter.resolve(record);
    this.#waiters.delete(begin.guid);
    const placement = this.#placement;
    if (placement) {
      placement(begin)
        .then((destination) => this.deliver(begin.guid, destination))
        .catch((error: unknown) =>
          debug(`download ${begin.suggestedFilename} not placed: ${(error as Error).message}`),
        );
    }
  }

  /** Where the bytes of a named download come from. */
  #source(begin: DownloadBegin): Promise<string> {
    if (begin.url.startsWith('data:')) return this.#fromDataUrl(begin.url);
    if (begin.url.startsWith('blob:')) return this.#fromBlobUrl(begin);
    const queue = this.#captured.get(begin.url);
    const staged = queue?.shift();
    if (queue && queue.length === 0) this.#captured.delete(begin.url);
    if (staged) return staged;
    return Promise.reject(
      new DownloadTransferError(
        `download of ${begin.url}: its response was not one the browser is known to download, so its bytes stayed on the remote machine; see https://github.com/remote-browser/remote-browser/blob/main/docs/remote.md`,
      ),
    );
  }

  /**
   * A `blob:` URL's bytes exist only in the page that made it: the page fetches its own URL into
   * a Blob, which `IO.resolveBlob` + `IO.read` stream out like a response body.
   */
  async #fromBlobUrl(begin: DownloadBegin): Promise<string> {
    const targets = this.#host.targets;
    const candidates = targets.has(begin.frameId)
      ? [begin.frameId]
      : [...targets.values()].filter((t) => t.type === 'page').map((t) => t.targetId);
    for (const targetId of candidates) {
      const target = await attachToTarget(this.#host, targetId).catch(() => undefined);
      if (!target) continue;
      try {
        const evaluated = await target.send<{
          result: { objectId?: string };
          exceptionDetails?: unknown;
        }>('Runtime.evaluate', {
          expression: `fetch(${JSON.stringify(begin.url)}).then((r) => r.blob())`,
          awaitPromise: true,
        });
        const objectId = evaluated.exceptionDetails ? undefined : evaluated.result.objectId;
        if (!objectId) continue;
        const { uuid } = await target.send<{ uuid: string }>('IO.resolveBlob', { objectId });
        return await this.#read(target.send, `blob:${uuid}`, begin.url);
      } finally {
        await target.detach();
      }
    }
    throw new DownloadTransferError(
      `download of a blob: URL (${begin.suggestedFilename}): no page has it any more (revoked before its bytes could be read over CDP); see https://github.com/remote-browser/remote-browser/blob/main/docs/remote.md`,
    );
  }

  async #fromDataUrl(url: string): Promise<string> {
    const path = nodePath().join(this.#staging, `${nodeCrypto().randomUUID()}.part`);
    // fetch() of a data: URL decodes it in-process (no network).
    const response = await fetch(url);
    if (!response.body) throw new DownloadTransferError('download of a data: URL without a body');
    await nodeStream().promises.pipeline(
      nodeStream().Readable.fromWeb(response.body as never),
      nodeFs().createWriteStream(path),
    );
    return path;
  }

  #canceled(guid: string): void {
    const record = this.#records.get(guid);
    if (!record) return;
    record.canceled = true;
    if (this.#deliveries.has(guid)) return;
    void record.staged.then(
      (path) =>
        nodeFsPromises()
          .unlink(path)
          .catch(() => {}),
      () => {},
    );
  }
}
