/**
 * A SessionLease owns one remote session's deletion: DELETE exactly once, however many of
 * close(), asyncDispose, 'disconnected', exit hooks and the watchdog ask for it. A DELETE that
 * fails leaves the session this process's job: it stays held (exit hooks and the watchdog still
 * end it), the ledger marks it `delete-failed` (reap ends those by default), and the next
 * release() tries again. It holds the account slot its create took and hands it back once the
 * session is no longer ours. Its transitions are the tracker's (tracker.ts).
 */
import type { BrowserApi } from '../browser-api/index.js';
import { createDebug } from '../http/debug.js';
import { LaunchError } from './errors.js';
import type { Slot } from './slots.js';
import { DELETE_TIMEOUT_MS, type Lease, tracker } from './tracker.js';

const debug = createDebug('launch');

export class SessionLease implements Lease {
  readonly id: string;
  readonly api: BrowserApi;
  #release: Promise<void> | undefined;
  #kept = false;
  readonly #slot: Slot | undefined;

  /** `slot`: the account slot the session's create took; released once the session is no longer ours. */
  constructor(api: BrowserApi, id: string, slot?: Slot) {
    this.api = api;
    this.id = id;
    this.#slot = slot;
    tracker.opened(this);
  }

  /** True until the session is deleted or kept: the exit hooks and the watchdog still end it. */
  get active(): boolean {
    return tracker.holds(this);
  }

  /** Leave the session running (keepSession, Puppeteer's disconnect()). */
  keep(): void {
    if (this.#release) return;
    this.#kept = true;
    // No longer ours to clean up: a later reap must not end a session the user kept.
    tracker.handedOver(this);
    this.#slot?.release();
  }

  /**
   * `kept`: the connection dropped but the session still runs; it stays ours (exit hooks,
   * watchdog, ledger) and is deleted after `windowMs` unless a re-attach takes it first.
   */
  keepFor(windowMs: number): void {
    tracker.kept(this, windowMs);
  }

  /**
   * Gives the kept session to the lease of a re-attach (connectRemote) in this process: no
   * longer this lease's to delete, and no ledger line (it is still ours). Returns the account
   * slot it held, for the new lease to hold. Call it just before the new lease is made, with
   * nothing awaited between, so the watchdog never misses the session.
   */
  handOff(): Slot | undefined {
    if (this.#release) return undefined;
    this.#kept = true;
    tracker.closed(this);
    return this.#slot;
  }

  /**
   * Deletes the session, once (concurrent and later calls share the one DELETE). A session that
   * is already gone (404) counts as deleted. After a failed DELETE, the next call tries again.
   */
  release(): Promise<void> {
    if (this.#kept) return Promise.resolve();
    this.#release ??= this.#delete().catch((error: unknown) => {
      this.#release = undefined;
      throw error;
    });
    return this.#release;
  }

  async #delete(): Promise<void> {
    tracker.ending(this);
    try {
      // A gone session (404) counts as deleted.
      if (
        (await tracker.end(this.api, this.id, 'close', { timeout: DELETE_TIMEOUT_MS })) ===
        'deleted'
      )
        debug(`session ${this.id} deleted`);
    } catch (error) {
      tracker.endFailed(this);
      throw new LaunchError(
        `session ${this.id} is still running: deleting it failed (${(error as Error).message}). ` +
          `close() again to retry, or end it with \`remote-browser sessions end ${this.id}\` ` +
          '(`remote-browser sessions reap` ends every session whose delete failed)',
        { cause: error, sessionId: this.id },
      );
    }
    tracker.closed(this);
    this.#slot?.release();
  }
}

/** Deletes every session this process still holds (the exit paths, tests). Never throws. */
export async function releaseAll(): Promise<void> {
  await Promise.allSettled(tracker.leases().map((lease) => lease.release()));
}
