/**
 * The capture side of the download bridge: the document responses the browser will download,
 * paused (`onPaused`) or served from the client by the tunnel (`onServed`), held one per URL
 * until the browser names them (download-hold.ts), and each named download's bytes staged on
 * the client (`stage`), capped at `maxBytes`, at most MAX_STAGING at once.
 */
import { createDebug } from '../http/debug.js';
import { nodeCrypto, nodeFsPromises, nodePath } from '../http/node-builtins.js';
import { DownloadHold } from './download-hold.js';
import { emptiedHeaders, isDownloadResponse } from './download-response.js';
import {
  cdpStream,
  DownloadTransferError,
  dataUrlChunks,
  stageBlobUrl,
  stageChunks,
} from './download-transfer.js';
import type { HeaderEntry, PausedRequest, RemoteCdp, ServedResponse } from './remote-cdp.js';

const debug = createDebug('remote-cdp:downloads');

/** How long a held body waits for the browser to name its download before it is dropped. */
export const NAME_TIMEOUT_MS = 10_000;
/** Downloads staged at once; the next waits for one to finish. */
export const MAX_STAGING = 3;

/** What `stage()` needs of `Browser.downloadWillBegin`. */
export interface NamedDownload {
  url: string;
  frameId: string;
  suggestedFilename: string;
}

export class DownloadCapture {
  readonly #host: RemoteCdp;
  readonly #staging: string;
  readonly #maxBytes: number;
  readonly #hold = new DownloadHold(NAME_TIMEOUT_MS);
  readonly #slots: (() => void)[] = [];
  #active = 0;

  constructor(host: RemoteCdp, staging: string, maxBytes: number) {
    this.#host = host;
    this.#staging = staging;
    this.#maxBytes = maxBytes;
  }

  /** Drops every held body (the bridge stops). */
  clear(): void {
    this.#hold.clear();
  }

  /**
   * A document response the browser fetched: its body can only be read before the browser gets
   * the response (its stream ends with the request), so it is staged first (capped, at most
   * MAX_STAGING at once), then held until the browser names it.
   */
  async onPaused(event: PausedRequest): Promise<boolean> {
    if (!isDownloadResponse(event)) return false;
    const url = event.request.url;
    const turn = await this.#hold.turn(url);
    let stream: string;
    try {
      ({ stream } = await this.#host.send('Fetch.takeResponseBodyAsStream', {
        requestId: event.requestId,
      }));
    } catch (error) {
      turn.cancel();
      debug(`cannot stream ${url}: ${(error as Error).message}`);
      return false;
    }
    const early = this.#stagingPath();
    const staged = this.#staged(() =>
      stageChunks(cdpStream(this.#host, stream), early, url, this.#maxBytes),
    );
    staged.catch(() => {});
    turn.hold({
      stage: async (path) => {
        await staged;
        await nodeFsPromises().rename(early, path);
      },
      discard: () => void staged.then(() => nodeFsPromises().unlink(early)).catch(() => {}),
    });
    // Whatever arrived, the browser gets its response: a failed read fails the download on the
    // client side (failure()), as a network error would on a local browser.
    await staged.catch(() => {});
    await this.#fulfillEmptied(
      event.requestId,
      event.responseStatusCode ?? 200,
      event.responseHeaders,
      event.responseStatusText,
    );
    return true;
  }

  /** A response an exposed host served to the client: its body stays unread until named. */
  async onServed(event: PausedRequest, response: ServedResponse): Promise<boolean> {
    const seen = {
      ...event,
      responseStatusCode: response.status,
      responseHeaders: response.headers,
    };
    if (!isDownloadResponse(seen)) return false;
    const url = event.request.url;
    const turn = await this.#hold.turn(url);
    turn.hold({
      stage: (path) => this.#staged(() => stageChunks(response.body, path, url, this.#maxBytes)),
      discard: response.cancel,
    });
    await this.#fulfillEmptied(event.requestId, response.status, response.headers);
    return true;
  }

  async #fulfillEmptied(
    requestId: string,
    status: number,
    headers: HeaderEntry[] | undefined,
    phrase?: string,
  ): Promise<void> {
    await this.#host.send('Fetch.fulfillRequest', {
      requestId,
      responseCode: status,
      ...(phrase ? { responsePhrase: phrase } : {}),
      responseHeaders: emptiedHeaders(headers),
      body: '',
    });
  }

  /** Stages the named download's bytes; resolves with the staged file. */
  async stage(begin: NamedDownload): Promise<string> {
    const held = this.#hold.take(begin.url);
    const path = this.#stagingPath();
    if (begin.url.startsWith('data:')) {
      const url = 'a data: URL';
      await this.#staged(() => stageChunks(dataUrlChunks(begin.url), path, url, this.#maxBytes));
    } else if (begin.url.startsWith('blob:')) {
      await this.#staged(() =>
        stageBlobUrl(this.#host, begin, path, this.#maxBytes).catch(async (error: unknown) => {
          await nodeFsPromises()
            .unlink(path)
            .catch(() => {});
          throw error;
        }),
      );
    } else if (held) {
      await held.stage(path).catch((error: unknown) => {
        held.discard();
        throw error;
      });
    } else {
      throw new DownloadTransferError(
        `download of ${begin.url}: its response was not one the browser is known to download, so its bytes stayed on the remote machine; see https://github.com/remote-browser/remote-browser/blob/main/docs/remote.md`,
      );
    }
    return path;
  }

  #stagingPath(): string {
    return nodePath().join(this.#staging, `${nodeCrypto().randomUUID()}.part`);
  }

  /** Runs one transfer to the staging folder, at most MAX_STAGING at once. */
  async #staged<T>(transfer: () => Promise<T>): Promise<T> {
    while (this.#active >= MAX_STAGING) {
      await new Promise<void>((resolve) => this.#slots.push(resolve));
    }
    this.#active++;
    try {
      return await transfer();
    } finally {
      this.#active--;
      this.#slots.shift()?.();
    }
  }
}
