/**
 * The process's one registry: every session and create this process must end, and the
 * process-wide state of their lifecycle. Each transition writes its ledger line here (ledger.ts)
 * and tells the watchdog here (its observers):
 *
 * - a create: creates.ts (`CreateTracker`, which this extends): sent, answered, refused, lost,
 *   abandoned;
 * - a session: its states and transitions are its RemoteSession's (remote-session.ts); the
 *   tracker holds every session still ours (`opened` until `closed`), writes the ledger lines
 *   they ask for, and sends each DELETE once (`end()`);
 * - the kept sessions of the reconnect window, the account slots, the clients launch/ built,
 *   the process hooks installed: fields here, the logic in reconnect-window.ts, slots.ts and
 *   exit-hooks.ts.
 *
 * The live path (create-session.ts, remote-session.ts), the exit hooks, the watchdog and `reap`
 * all call into it. One per process (`tracker`), as the exit hooks and the watchdog are: a
 * client's sessions are ended on exit even if nothing else references the client. Each DELETE
 * is sent once however many paths ask.
 */
import type { BrowserApi } from '../browser-api/index.js';
import type { CallOptions } from '../http/call-options.js';
import { isNotFoundError } from '../http/errors.js';
import { CreateTracker, type Ended } from './creates.js';
import type { SessionEnd } from './end-reason.js';
import {
  type CreateIntent,
  type EndedBy,
  recordCreated,
  recordCreateSettled,
  recordDeleteFailed,
  recordDeleting,
  recordEnded,
} from './ledger.js';
import { AccountSlots, type Slot } from './slots.js';

export { DELETE_TIMEOUT_MS, type Ended, isLostCreate, type TrackedCreate } from './creates.js';

/**
 * How many ended sessions `end()` keeps answering from memory. The paths that may ask twice (a
 * close() racing the exit hooks, a reconciliation, a late create's hand-off) ask within seconds
 * of each other; a crawler that ends a session every second for a week would otherwise keep
 * 600,000 answers. Past this, an old id asked again is sent a second DELETE, which ends
 * nothing: the session ended long ago.
 */
export const REMEMBERED_ENDS = 1024;

/** A session this process must end (a RemoteSession, remote-session.ts). */
export interface Lease {
  readonly id: string;
  readonly api: BrowserApi;
  /** `exit`: the exit paths end it (the session's own transition table says what that does). */
  release(event?: 'exit'): Promise<void>;
}

/** Hears sessions open and close, and creates start and settle (the watchdog mirrors them). */
export interface TrackerObserver {
  lease?(lease: Lease, event: 'opened' | 'closed'): void;
  /**
   * `createdId` comes with 'settled' when the create returned a session: an observer that
   * mirrors both (the watchdog) learns the session in the same step the intent closes, so it
   * never holds neither, even for the moment before the session's lease opens.
   */
  create?(intent: CreateIntent, event: 'started' | 'settled', createdId?: string): void;
  /** A session ended (or found gone), whichever path asked: nothing left to end; `by` as in the ledger. */
  ended?(id: string, by: EndedBy): void;
  /** Handed over: the user keeps the session running (no longer ours, not ended). */
  handedOver?(id: string): void;
  /** Why a session went away without close(), as its end line says it (the usage's cause). */
  reported?(id: string, end: SessionEnd): void;
}

/** What a re-attach takes out of the reconnect window: the session, said and ended the window's way. */
export interface TakenKept {
  readonly id: string;
  handOff(): Slot | undefined;
  end(): Promise<void>;
  report(end: SessionEnd): void;
}

/** A session kept after a drop, in its reconnect window (reconnect-window.ts decides and takes). */
export interface KeptSession {
  /** A drop-in's reuse key (`reuseKeyOf`): the next drop-in launch with it may take the session. */
  readonly reuseKey: string | undefined;
  /** Out of the window, for a re-attach: the window stops watching the session. */
  take(): TakenKept;
}

export class SessionTracker extends CreateTracker {
  readonly #leases = new Set<Lease>();
  /** One DELETE per session: every path that ends one shares it. */
  readonly #ends = new Map<string, Promise<Ended>>();
  /** The keys of `#ends` whose DELETE has answered, oldest first, with their session ids. */
  readonly #settledEnds = new Map<string, string>();
  readonly #observers = new Set<TrackerObserver>();
  /** The account slots, one per account (`accountKeyOf`): every client of one account shares them. */
  readonly #accounts = new Map<string, AccountSlots>();
  /** The clients launch/ built for itself: they share one per-client cache (`clientKey`). */
  readonly #ownClients = new WeakSet<BrowserApi>();
  /** A number per caller's client, for drop-in reuse keys (`reuseKeyOf`). */
  readonly #clientNumbers = new WeakMap<BrowserApi, number>();
  #clients = 0;

  /** Sessions kept after a drop, in their reconnect window, by id (reconnect-window.ts). */
  readonly kept = new Map<string, KeptSession>();
  /** Drops of a reuse key whose service lookup is still on the wire (reconnect-window.ts). */
  readonly deciding = new Map<string, Set<Promise<void>>>();
  /** Kept sessions whose browser was closed after its drop: only a launch of this process can take them. */
  readonly closedKept = new Set<string>();
  /** Re-attaches made by drop-in launches in this process (said in their debug line). */
  reattachedByLaunch = 0;
  /** The process hooks installed (exit-hooks.ts): the exit hooks' remover, the idle hook. */
  readonly hooks: { exit?: (() => void) | undefined; idle?: boolean } = {};

  /** The slots of `account` (`accountKeyOf(api)`), one per account in this process. */
  slotsOf(account: string): AccountSlots {
    let slots = this.#accounts.get(account);
    if (!slots) {
      slots = new AccountSlots();
      this.#accounts.set(account, slots);
    }
    return slots;
  }

  /** Marks a client launch/ built for itself (no `api` option). */
  ownClient(api: BrowserApi): BrowserApi {
    this.#ownClients.add(api);
    return api;
  }

  /**
   * The key of a client's caches (preflight results, profile creates): its own for a caller's
   * client, which end with it; one shared key for every client launch/ built itself.
   */
  clientKey(api: BrowserApi): object {
    return this.#ownClients.has(api) ? OWN_CLIENTS : api;
  }

  /** A number for a caller's client, the same for its life. */
  clientNumber(api: BrowserApi): number {
    let n = this.#clientNumbers.get(api);
    if (n === undefined) {
      n = ++this.#clients;
      this.#clientNumbers.set(api, n);
    }
    return n;
  }

  /** Sessions still ours: open, ending, or kept. */
  leases(): Lease[] {
    return [...this.#leases];
  }

  holds(lease: Lease): boolean {
    return this.#leases.has(lease);
  }

  /** Observes every transition. Returns the unsubscribe. */
  observe(observer: TrackerObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  // ── sessions ─────────────────────────────────────────────────────────────────────────────

  /** `opened`: a lease holds the session. One adopted from elsewhere gets its `created` line here. */
  opened(lease: Lease): void {
    if (!this.created.has(lease.id)) recordCreated(lease.id, lease.api.origin);
    this.#leases.add(lease);
    this.#emit((o) => o.lease?.(lease, 'opened'));
  }

  /** `ending`: its DELETE is about to be sent. */
  ending(lease: Lease): void {
    recordDeleting(lease.id);
  }

  /** The DELETE failed: the session is still running and still ours. */
  endFailed(lease: Lease): void {
    recordDeleteFailed(lease.id);
  }

  /** Handed over: the user keeps the session running; a later reap must not end it. */
  handedOver(lease: Lease): void {
    recordEnded(lease.id, 'kept');
    this.#emit((o) => o.handedOver?.(lease.id));
    this.closed(lease);
  }

  /** Why a session went away without close(): told to the observers (usage counts it). */
  reported(id: string, end: SessionEnd): void {
    this.#emit((o) => o.reported?.(id, end));
  }

  /** The session is no longer ours (ended or handed over). */
  closed(lease: Lease): void {
    if (!this.#leases.delete(lease)) return;
    this.#emit((o) => o.lease?.(lease, 'closed'));
  }

  /**
   * `ended`: sends `DELETE /sessions/{id}` once however many paths ask (a close(), the exit
   * hooks, a reconciliation that found it, an abandoned create's hand-off, a reap): a second
   * caller shares the first one's answer, and the ledger gets one `ended` line, `by` (or `gone`
   * when it had already ended). A failed DELETE is forgotten, so the next call retries.
   */
  end(api: BrowserApi, id: string, by: EndedBy, call: CallOptions): Promise<Ended> {
    const key = `${api.origin} ${id}`;
    let ending = this.#ends.get(key);
    if (!ending) {
      ending = api.sessions.end(id, call).then(
        (): Ended => this.#ended(key, id, 'deleted', by),
        (error: unknown): Ended => {
          if (isNotFoundError(error)) return this.#ended(key, id, 'gone', by);
          this.#ends.delete(key);
          throw error;
        },
      );
      this.#ends.set(key, ending);
    }
    return ending;
  }

  #ended(key: string, id: string, how: Ended, by: EndedBy): Ended {
    recordEnded(id, how === 'gone' ? 'gone' : by);
    this.#settledEnds.set(key, id);
    for (const [oldKey, oldId] of this.#settledEnds) {
      if (this.#settledEnds.size <= REMEMBERED_ENDS) break;
      this.#settledEnds.delete(oldKey);
      this.#ends.delete(oldKey);
      this.created.delete(oldId);
    }
    this.#emit((o) => o.ended?.(id, how === 'gone' ? 'gone' : by));
    return how;
  }

  /** A session of another process that `reap` found already gone, or an intent it reconciled. */
  forgotten(entry: { id: string } | { intent: string }): void {
    if ('id' in entry) recordEnded(entry.id, 'gone');
    else recordCreateSettled(entry.intent);
  }

  // ── the way out ──────────────────────────────────────────────────────────────────────────

  /**
   * Ends every session and every create in flight (the exit hooks). A create that answers
   * within `graceMs` has its session ended; one that does not (or whose answer was lost) is
   * reconciled once; an intent that finds nothing while its create is still pending stays open
   * in the ledger for `reap`. Never throws.
   */
  async endEverything(graceMs: number): Promise<void> {
    await Promise.allSettled([
      this.#releaseAll(),
      ...this.creates().map((c) => this.endCreate(c, graceMs)),
    ]);
    // Leases that a create finishing meanwhile opened.
    await this.#releaseAll();
  }

  async #releaseAll(): Promise<void> {
    await Promise.allSettled(this.leases().map((lease) => lease.release('exit')));
  }

  protected createChanged(
    intent: CreateIntent,
    event: 'started' | 'settled',
    createdId?: string,
  ): void {
    this.#emit((o) => o.create?.(intent, event, createdId));
  }

  #emit(call: (observer: TrackerObserver) => void): void {
    for (const o of this.#observers) call(o);
  }
}

/** The process's one tracker. */
export const tracker = new SessionTracker();

/** The one cache key of the clients launch/ built itself. */
export const OWN_CLIENTS: object = {};

/** Marks a client launch/ built for itself (no `api` option). */
export function ownClient(api: BrowserApi): BrowserApi {
  return tracker.ownClient(api);
}

/** The slots of `account` (`accountKeyOf(api)`), one per account in this process. */
export function slotsOf(account: string): AccountSlots {
  return tracker.slotsOf(account);
}

/** The key of a client's caches (`SessionTracker.clientKey`). */
export function clientKey(api: BrowserApi): object {
  return tracker.clientKey(api);
}
