/**
 * A SessionLease owns one remote session's deletion: DELETE exactly once, however many of
 * close(), asyncDispose, 'disconnected', exit hooks and the watchdog ask for it.
 */
import type { BrowserApi } from '../browser-api/index.js';
import { createDebug } from '../http/debug.js';
import { isNotFoundError } from '../http/errors.js';
import { recordCreated, recordEnded } from './ledger.js';

const debug = createDebug('launch');

/** Every lease not yet released in this process: exit hooks and the watchdog work from it. */
export const activeLeases: Set<SessionLease> = new Set();

type LeaseListener = (lease: SessionLease, event: 'opened' | 'closed') => void;
const listeners = new Set<LeaseListener>();

/** Observes leases opening and closing (the watchdog mirrors them). Returns the unsubscribe. */
export function onLeaseChange(listener: LeaseListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export class SessionLease {
  readonly id: string;
  readonly api: BrowserApi;
  #release: Promise<void> | undefined;
  #kept = false;
  #onReleased: (() => void)[] = [];

  constructor(api: BrowserApi, id: string) {
    this.api = api;
    this.id = id;
    activeLeases.add(this);
    recordCreated(id, api.origin);
    for (const l of listeners) l(this, 'opened');
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
    recordEnded(this.id);
    this.#forget();
  }

  /** Runs `fn` once the session has been deleted. */
  onReleased(fn: () => void): void {
    this.#onReleased.push(fn);
  }

  /** Deletes the session, once. A session that is already gone (404) counts as deleted. */
  release(): Promise<void> {
    if (this.#kept) return Promise.resolve();
    this.#release ??= this.#delete();
    return this.#release;
  }

  async #delete(): Promise<void> {
    try {
      await this.api.sessions.end(this.id, { timeout: 30_000 });
      debug(`session ${this.id} deleted`);
    } catch (error) {
      if (!isNotFoundError(error)) {
        // Left in the ledger as open, so `reapSessions()` can end it later.
        activeLeases.delete(this);
        for (const l of listeners) l(this, 'closed');
        throw error;
      }
    }
    recordEnded(this.id);
    this.#forget();
    for (const fn of this.#onReleased.splice(0)) fn();
  }

  #forget(): void {
    if (!activeLeases.delete(this)) return;
    for (const l of listeners) l(this, 'closed');
  }
}

/** Deletes every active session of this process (exit paths). Never throws. */
export async function releaseAll(): Promise<void> {
  await Promise.allSettled([...activeLeases].map((lease) => lease.release()));
}
