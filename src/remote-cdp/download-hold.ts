/**
 * Download bodies waiting for the browser to name them (`Browser.downloadWillBegin`), one per
 * URL at a time: a second response of the same URL waits for the first to be named (or
 * dropped) before it is handed to the browser, so the name Chromium gives next for that URL
 * belongs to exactly the request that is held. A body not named within `timeoutMs` is dropped.
 */
import { createDebug } from '../http/debug.js';

const debug = createDebug('remote-cdp:downloads');

/** A body waiting for its name. */
export interface HeldBody {
  /** Writes the body to `path` (a new file); the caller removes it when this rejects. */
  stage(path: string): Promise<void>;
  /** Drops the body (unread, or its staged copy). */
  discard(): void;
}

interface Entry {
  body: HeldBody | undefined;
  timer: NodeJS.Timeout | undefined;
  release: () => void;
}

export class DownloadHold {
  readonly #timeoutMs: number;
  readonly #entries = new Map<string, Entry>();
  readonly #turns = new Map<string, Promise<void>>();

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Waits until no body of `url` is held, then reserves the URL: resolves with the function
   * that holds the body once the browser is about to see the response (`hold`), or gives the
   * turn back (`cancel`) when it will not.
   */
  async turn(url: string): Promise<{ hold(body: HeldBody): void; cancel(): void }> {
    for (let turn = this.#turns.get(url); turn; turn = this.#turns.get(url)) await turn;
    let done = () => {};
    const turn = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#turns.set(url, turn);
    const entry: Entry = {
      body: undefined,
      timer: undefined,
      release: () => {
        clearTimeout(entry.timer);
        if (this.#entries.get(url) === entry) this.#entries.delete(url);
        if (this.#turns.get(url) === turn) this.#turns.delete(url);
        done();
      },
    };
    return {
      hold: (body) => {
        entry.body = body;
        entry.timer = setTimeout(() => {
          debug(`a download of ${url} was not named within ${this.#timeoutMs} ms: dropped`);
          body.discard();
          entry.release();
        }, this.#timeoutMs);
        entry.timer.unref();
        this.#entries.set(url, entry);
      },
      cancel: () => entry.release(),
    };
  }

  /** The body held for `url`, now named: taken out, and the URL's next response may go. */
  take(url: string): HeldBody | undefined {
    const entry = this.#entries.get(url);
    if (!entry) return undefined;
    entry.release();
    return entry.body;
  }

  /** Drops every held body (the bridge stops). */
  clear(): void {
    for (const entry of [...this.#entries.values()]) {
      entry.body?.discard();
      entry.release();
    }
  }
}
