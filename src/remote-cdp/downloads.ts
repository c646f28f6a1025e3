/**
 * Downloads of a remote browser, brought to the client over the CDP connection. The remote
 * browser saves a download on ITS disk; the client's library then looks for it on the client's
 * (Playwright copies from its artifacts folder, a Puppeteer user reads the `downloadPath`).
 *
 * How the bytes travel: a document response the browser will download (download-response.ts)
 * is paused at the Response stage on the browser-level session; its body is taken as a stream
 * (`Fetch.takeResponseBodyAsStream`, nothing read yet) and the browser gets the response
 * emptied, which it names at once (`Browser.downloadWillBegin`) and completes. Only then, once
 * Chromium has decided it IS a download, are the bytes read into a staged file on the client
 * (download-transfer.ts), capped at `maxDownloadBytes`, at most MAX_STAGING at once. A body the
 * browser does not name within NAME_TIMEOUT_MS is dropped unread. The body of an exposed host's
 * response (the tunnel served it from the client) is handed over the same way (`onServed`).
 *
 * Matching a name to its body: the request id of the paused response is held until the browser
 * names a download of that URL, and one response per URL is held at a time (the next waits), so
 * the name Chromium gives belongs to exactly that request (two POST exports to one URL cannot
 * swap bodies). A `data:` URL carries its bytes in the event itself; a `blob:` URL's are read in
 * the frame that made it.
 *
 * Names from outside (download-names.ts): a `guid` that is not a UUID fails the download; a file
 * placed by suggested name gets a safe base name, stays inside its folder, and never replaces a
 * file there.
 */
import type { Protocol } from 'devtools-protocol';
import { createDebug } from '../http/debug.js';
import { nodeFsPromises, nodeOs, nodePath } from '../http/node-builtins.js';
import { DownloadCapture } from './download-capture.js';
import { isGuid, moveExclusive, moveToFreeName, safeFileName } from './download-names.js';
import { DownloadTooLargeError, DownloadTransferError } from './download-transfer.js';
import type { RemoteCdp } from './remote-cdp.js';

export { MAX_STAGING, NAME_TIMEOUT_MS } from './download-capture.js';
export { DownloadTooLargeError, DownloadTransferError } from './download-transfer.js';

const debug = createDebug('remote-cdp:downloads');

/** Default of `maxDownloadBytes`: 1 GiB. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024;

/** `Browser.downloadWillBegin`. */
export interface DownloadBegin {
  guid: string;
  url: string;
  frameId: string;
  suggestedFilename: string;
}

export interface RemoteDownloadsOptions {
  /**
   * `Browser.setDownloadBehavior`'s behavior for the remote browser's default context, which
   * also turns the download events on for this session. Playwright: `'allowAndName'`;
   * Puppeteer: the user's `downloadBehavior.policy`.
   */
  policy: 'allow' | 'allowAndName' | 'deny' | 'default';
  /**
   * A folder where every download's file goes as soon as its bytes are here, named by its guid
   * (`'guid'`) or by the browser's suggested name made safe (`'suggested'`, never replacing a
   * file). Nothing (the default) keeps it staged until `deliver()` asks for it.
   */
  placement?: { folder: string; naming: 'guid' | 'suggested' };
  /**
   * Whether to pause document responses from the start (`receive()` changes it later). Only a
   * paused response can be brought to the client, but a paused navigation costs a round trip:
   * Playwright turns it on only while a page has a `download` listener (or with
   * `downloadsPath`). Default: true.
   */
  receiving?: boolean;
  /** The largest download brought to the client, in bytes. Default: 1 GiB (DEFAULT_MAX_DOWNLOAD_BYTES). */
  maxDownloadBytes?: number;
}

/** A download the browser has named. */
interface Named {
  begin: DownloadBegin;
  /** The staged file with every byte; rejects when they did not all arrive. */
  staged: Promise<string>;
  canceled?: boolean;
}

export class RemoteDownloads {
  readonly #host: RemoteCdp;
  readonly #staging: string;
  readonly #options: RemoteDownloadsOptions;
  readonly #capture: DownloadCapture;
  readonly #records = new Map<string, Named>();
  /** Each delivered download's path on the client. */
  readonly #deliveries = new Map<string, Promise<string>>();
  readonly #waiters = new Map<string, { resolve(r: Named): void; reject(e: Error): void }[]>();
  readonly #stop: (() => void)[] = [];
  #unintercept: (() => Promise<void>) | undefined;
  #closed: Promise<void> | undefined;

  private constructor(host: RemoteCdp, staging: string, options: RemoteDownloadsOptions) {
    this.#host = host;
    this.#staging = staging;
    this.#options = options;
    this.#capture = new DownloadCapture(
      host,
      staging,
      options.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
    );
  }

  /**
   * Starts bridging the browser's downloads; `close()` stops and removes what is staged. Its
   * commands join the session's setup batch: `host.ready()` waits for them.
   */
  static async start(host: RemoteCdp, options: RemoteDownloadsOptions): Promise<RemoteDownloads> {
    const staging = await nodeFsPromises().mkdtemp(
      nodePath().join(nodeOs().tmpdir(), 'remote-browser-downloads-'),
    );
    const downloads = new RemoteDownloads(host, staging, options);
    downloads.#begin(options.policy);
    return downloads;
  }

  #begin(policy: RemoteDownloadsOptions['policy']): void {
    this.#stop.push(
      this.#host.on('Browser.downloadWillBegin', (e) => this.#onNamed(e)),
      this.#host.on('Browser.downloadProgress', (e) => {
        if (e.state === 'canceled') this.#canceled(e.guid);
      }),
    );
    void this.#host.setup(this.#behavior());
    if (policy === 'deny' || policy === 'default') return;
    this.#stop.push(() => this.receive(false));
    this.receive(this.#options.receiving ?? true);
  }

  /**
   * Sends the download behavior again, after a library's own connect set its own (Playwright's
   * `connectOverCDP` sets `downloadPath` to its client-side folder; the last one sent wins, and
   * the remote machine may have no such folder). Not awaited; a failure is a debug line.
   */
  applyBehavior(): void {
    this.#host
      .send('Browser.setDownloadBehavior', this.#behavior().params)
      .catch((error: unknown) =>
        debug(`the download behavior was not applied: ${(error as Error).message}`),
      );
  }

  #behavior(): {
    method: 'Browser.setDownloadBehavior';
    params: Protocol.Browser.SetDownloadBehaviorRequest;
  } {
    const policy = this.#options.policy;
    // The remote path only receives the emptied files; the staging folder's name is as good
    // as any (Chromium creates it on the remote machine).
    return {
      method: 'Browser.setDownloadBehavior',
      params: {
        behavior: policy,
        ...(policy === 'allow' || policy === 'allowAndName' ? { downloadPath: this.#staging } : {}),
        eventsEnabled: true,
      },
    };
  }

  /**
   * Whether document responses are paused to learn if they are downloads (see
   * RemoteDownloadsOptions.receiving). The change is sent at once, before any later command of
   * the caller's connection, and is not awaited.
   */
  receive(on: boolean): void {
    if (on === (this.#unintercept !== undefined) || (on && this.#closed)) return;
    if (!on) {
      const remove = this.#unintercept;
      this.#unintercept = undefined;
      void remove?.().catch(() => {});
      return;
    }
    this.#unintercept = this.#host.intercept({
      role: 'downloads',
      patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Response' }],
      onPaused: (event) => this.#capture.onPaused(event),
      onServed: (event, response) => this.#capture.onServed(event, response),
    });
  }

  /**
   * Puts the download's bytes at `destination` once they are all on the client (the same call
   * again returns the same promise); never replaces a file there. Rejects with
   * DownloadTransferError when the bytes did not all arrive.
   */
  deliver(guid: string, destination: string): Promise<void> {
    return this.#deliver(guid, async (staged) => {
      await nodeFsPromises().mkdir(nodePath().dirname(destination), { recursive: true });
      await moveExclusive(staged, destination);
      return destination;
    }).then(() => {});
  }

  /** Delivers `guid` once, wherever `put` moves its staged file; later calls get the first path. */
  #deliver(guid: string, put: (staged: string) => Promise<string>): Promise<string> {
    let delivered = this.#deliveries.get(guid);
    if (!delivered) {
      delivered = this.#named(guid).then(async (record) => put(await record.staged));
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
      this.#capture.clear();
      const gone = new DownloadTransferError('the browser disconnected before the download began');
      for (const waiters of this.#waiters.values()) for (const w of waiters) w.reject(gone);
      this.#waiters.clear();
      await nodeFsPromises().rm(this.#staging, { recursive: true, force: true });
    })();
    return this.#closed;
  }

  /** The record of `guid` once the browser has named it. */
  async #named(guid: string): Promise<Named> {
    const known = this.#records.get(guid);
    if (known) return known;
    if (this.#closed)
      throw new DownloadTransferError('the browser disconnected before the download began');
    return new Promise<Named>((resolve, reject) => {
      const list = this.#waiters.get(guid) ?? [];
      list.push({ resolve, reject });
      this.#waiters.set(guid, list);
    });
  }

  #onNamed(begin: DownloadBegin): void {
    const staged = isGuid(begin.guid)
      ? this.#capture.stage(begin)
      : Promise.reject(
          new DownloadTransferError(
            `a download was named with a guid that is not one (${JSON.stringify(begin.guid.slice(0, 80))}): refused`,
          ),
        );
    staged.catch(() => {});
    const record: Named = { begin, staged };
    this.#records.set(begin.guid, record);
    for (const waiter of this.#waiters.get(begin.guid) ?? []) waiter.resolve(record);
    this.#waiters.delete(begin.guid);
    const placement = this.#options.placement;
    if (placement && isGuid(begin.guid)) {
      void this.#place(begin, placement).catch((error: unknown) => {
        debug(`download ${begin.guid} not placed: ${(error as Error).message}`);
        // Nothing else tells a user of a download folder that a file is missing, and why.
        if (error instanceof DownloadTooLargeError)
          process.emitWarning(error.message, {
            type: 'RemoteBrowserWarning',
            code: 'REMOTE_BROWSER_DOWNLOAD_TOO_LARGE',
          });
      });
    }
  }

  async #place(
    begin: DownloadBegin,
    placement: NonNullable<RemoteDownloadsOptions['placement']>,
  ): Promise<void> {
    if (placement.naming === 'guid') {
      await this.deliver(begin.guid, nodePath().join(placement.folder, begin.guid));
      return;
    }
    const name = safeFileName(begin.suggestedFilename);
    await this.#deliver(begin.guid, (staged) => moveToFreeName(staged, placement.folder, name));
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
