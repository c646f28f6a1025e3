/**
 * A SessionLease owns one remote session's deletion: DELETE exactly once, however many of
 * close(), asyncDispose, 'disconnected', exit hooks and the watchdog ask for it. A DELETE that
 * fails leaves the session this process's job: it stays active (exit hooks and the watchdog
 * still end it), the ledger marks it `delete-failed` (reap ends those by default), and the
 * next release() tries again. Active leases are kept in their client's registry
 * (launch-registry.ts).
 */
import type { BrowserApi } from '../browser-api/index.js';
import { createDebug } from '../http/debug.js';
import { LaunchError } from './errors.js';
import { type LaunchRegistry, type Lease, liveRegistries, registryOf } from './launch-registry.js';
import { recordCreated, recordDeleteFailed, recordDeleting, recordEnded } from './ledger.js';

const debug = createDebug('launch');

export class SessionLease implements Lease {
  readonly id: string;
  readonly api: BrowserApi;
  readonly #registry: LaunchRegistry;
  #release: Promise<void> | undefined;
  #kept = false;
  #onReleased: (() => void)[] = [];

  constructor(api: BrowserApi, id: string) {
    this.api = api;
    this.id = id;
    this.#registry = registryOf(api);
    recordCreated(id, api.origin);
    this.#registry.addLease(this);
  }

  /** True until the session is deleted or kept: the exit hooks and the watchdog still end it. */
  get active(): boolean {
    return this.#registry.hasLease(this);
  }

  /** True once release() or keep() was called. */
  get settled(): boolean {
    return this.#release !== undefined || this.#kept;
  }

  /** Leave the session running (keepSession, Puppeteer's disconnect()). */
  keep(): void {
    if (this.#release) return;
    this.#kept = true;
    // No longer ours to clean up: a later reap must not end a session the user kept.
    recordEnded(this.id, 'kept');
    this.#forget();
  }

  /**
   * Gives the session up to another lease of this process (a re-attach after a drop): no longer
   * this lease's to delete, but still running and covered by the one that took it.
   */
  handOff(): void {
    if (this.#release) return;
    this.#kept = true;
    this.#forget();
  }

  /** Runs `fn` once the session has been deleted. */
  onReleased(fn: () => void): void {
    this.#onReleased.push(fn);
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
    recordDeleting(this.id);
    try {
      // A gone session (404) counts as deleted.
      if ((await this.#registry.endOnce(this.api, this.id, 30_000)) === 'deleted')
        debug(`session ${this.id} deleted`);
    } catch (error) {
      recordDeleteFailed(this.id);
      throw new LaunchError(
        `session ${this.id} is still running: deleting it failed (${(error as Error).message}). ` +
          `close() again to retry, or end it with \`remote-browser sessions end ${this.id}\` ` +
          '(`remote-browser sessions reap` ends every session whose delete failed)',
        { cause: error, sessionId: this.id },
      );
    }
    recordEnded(this.id);
    this.#forget();
    for (const fn of this.#onReleased.splice(0)) fn();
  }

  #forget(): void {
    this.#registry.removeLease(this);
  }
}

/**
 * Deletes every active session of the given registries (default: every client's in this
 * process, the exit paths). Never throws.
 */
export async function releaseAll(registries: LaunchRegistry[] = liveRegistries()): Promise<void> {
  const leases = registries.flatMap((registry) => registry.leases());
  await Promise.allSettled(leases.map((lease) => lease.release()));
}

/** Calls `slot.release()` once `lease` is released or kept (it is then no longer ours). */
export function releaseWhenSettled(lease: SessionLease, slot: { release(): void }): void {
  if (!lease.active) {
    slot.release();
    return;
  }
  const unsubscribe = registryOf(lease.api).observe({
    lease(changed, event) {
      if (changed !== lease || event !== 'closed') return;
      unsubscribe();
      slot.release();
    },
  });
}
