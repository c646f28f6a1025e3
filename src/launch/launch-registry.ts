/**
 * What launch/ remembers between calls, owned per BrowserApi (as Playwright's `Connection` owns
 * the objects it created) instead of per process: a client's cache, its creates on the wire,
 * its leases, its view of the account's session limit and the sessions it has deleted end with
 * the client, and a test's own client starts clean without anyone clearing module state. One
 * default instance serves the clients launch/ builds for itself (no `api` option), so launches
 * without a client still share all of it, as before.
 *
 * Process-level by nature, and so not here: the exit hooks' listeners (exit-hooks.ts) and the
 * watchdog child (watchdog.ts), one each per process. They work from every registry that holds a
 * lease or a create in flight (`liveRegistries()`, `observeRegistries()`); a registry is held
 * there while it does, so a session is ended on exit even if nothing else references its client.
 */
import type { BrowserApi, Profile, SessionCreated } from '../browser-api/index.js';
import { isNotFoundError } from '../http/errors.js';
import type { PreflightIssue } from './errors.js';
import type { CreateIntent } from './ledger.js';

/** A create on the wire (creates-in-flight.ts). */
export interface InFlightCreate {
  readonly intent: CreateIntent;
  readonly api: BrowserApi;
  readonly call: Promise<SessionCreated>;
  /**
   * Marks the intent settled (once): its outcome is known or reconciled. `createdId`: the
   * session the create returned, told to observers in the same event.
   */
  settle(createdId?: string): void;
}

/** A session the client must end (a SessionLease, session-lease.ts). */
export interface Lease {
  readonly id: string;
  readonly api: BrowserApi;
  release(): Promise<void>;
}

/** Hears leases open and close, and creates start and settle (the watchdog mirrors them). */
export interface RegistryObserver {
  lease?(lease: Lease, event: 'opened' | 'closed'): void;
  /**
   * `createdId` comes with 'settled' when the create returned a session: an observer that
   * mirrors both (the watchdog) learns the session in the same step the intent closes, so it
   * never holds neither, even for the moment before the session's lease opens.
   */
  create?(intent: CreateIntent, event: 'started' | 'settled', createdId?: string): void;
  /** A session this client ended (or found gone), whichever path asked: nothing left to end. */
  ended?(id: string): void;
}

/** How a DELETE ended: the session was deleted, or had already ended (404). */
export type Ended = 'deleted' | 'gone';

/**
 * How many ended sessions `endOnce()` keeps answering from memory. The paths that may ask twice
 * (a close() racing the exit hooks, a reconciliation, a late create's hand-off) ask within
 * seconds of each other; a crawler that ends a session every second for a week would otherwise
 * keep 600,000 answers. Past this, an old id asked again is sent a second DELETE, which ends
 * nothing: the session ended long ago.
 */
export const REMEMBERED_ENDS = 1024;

export class LaunchRegistry {
  /** Preflight results by `origin key` (preflight.ts); a failed check is removed again. */
  readonly preflights = new Map<string, Promise<PreflightIssue[]>>();
  /** Find-or-create of a profile by `origin name` in progress: two launches create it once. */
  readonly profileCreates = new Map<string, Promise<Profile>>();
  /**
   * Session ids a create handed this client (reconciliation never touches them). An ended one
   * leaves with its `endOnce()` answer, REMEMBERED_ENDS ends later: long after the service's
   * running list stopped showing it.
   */
  readonly created = new Set<string>();
  readonly #creates = new Map<string, InFlightCreate>();
  readonly #leases = new Set<Lease>();
  /** One DELETE per session: every path that ends one (lease, exit, reconcile) shares it. */
  readonly #ends = new Map<string, Promise<Ended>>();
  /** The keys of `#ends` whose DELETE has answered, oldest first, with their session ids. */
  readonly #settledEnds = new Map<string, string>();
  readonly #observers = new Set<RegistryObserver>();

  /** Creates not yet settled. */
  creates(): InFlightCreate[] {
    return [...this.#creates.values()];
  }

  /** Leases not yet released or kept. */
  leases(): Lease[] {
    return [...this.#leases];
  }

  hasLease(lease: Lease): boolean {
    return this.#leases.has(lease);
  }

  addCreate(create: InFlightCreate): void {
    this.#creates.set(create.intent.intent, create);
    live.add(this);
    this.#emit((o) => o.create?.(create.intent, 'started'));
  }

  removeCreate(create: InFlightCreate, createdId?: string): void {
    if (!this.#creates.delete(create.intent.intent)) return;
    this.#dropIfIdle();
    this.#emit((o) => o.create?.(create.intent, 'settled', createdId));
  }

  addLease(lease: Lease): void {
    this.#leases.add(lease);
    live.add(this);
    this.#emit((o) => o.lease?.(lease, 'opened'));
  }

  /** Returns false when the lease was not (or no longer) active. */
  removeLease(lease: Lease): boolean {
    if (!this.#leases.delete(lease)) return false;
    this.#dropIfIdle();
    this.#emit((o) => o.lease?.(lease, 'closed'));
    return true;
  }

  /**
   * Sends `DELETE /sessions/{id}` once for this client, however many paths ask (a close(), the
   * exit hooks, a reconciliation that found it, the hand-off of an abandoned create): a second
   * caller shares the first one's answer. A failed DELETE is forgotten, so the next call retries.
   */
  endOnce(api: BrowserApi, id: string, timeoutMs: number): Promise<Ended> {
    const key = `${api.origin} ${id}`;
    let ending = this.#ends.get(key);
    if (!ending) {
      ending = api.sessions.end(id, { timeout: timeoutMs }).then(
        (): Ended => this.#ended(key, id, 'deleted'),
        (error: unknown): Ended => {
          if (isNotFoundError(error)) return this.#ended(key, id, 'gone');
          this.#ends.delete(key);
          throw error;
        },
      );
      this.#ends.set(key, ending);
    }
    return ending;
  }

  /** Observes this registry's leases and creates. Returns the unsubscribe. */
  observe(observer: RegistryObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  #ended(key: string, id: string, how: Ended): Ended {
    this.#settledEnds.set(key, id);
    for (const [oldKey, oldId] of this.#settledEnds) {
      if (this.#settledEnds.size <= REMEMBERED_ENDS) break;
      this.#settledEnds.delete(oldKey);
      this.#ends.delete(oldKey);
      this.created.delete(oldId);
    }
    this.#emit((o) => o.ended?.(id));
    return how;
  }

  #emit(call: (observer: RegistryObserver) => void): void {
    for (const o of this.#observers) call(o);
    for (const o of everywhere) call(o);
  }

  #dropIfIdle(): void {
    if (this.#creates.size === 0 && this.#leases.size === 0) live.delete(this);
  }
}

/** The registry of every client launch/ built itself. */
export const defaultRegistry = new LaunchRegistry();

const owners = new WeakMap<BrowserApi, LaunchRegistry>();
/** Registries holding a lease or a create in flight (held strongly while they do). */
const live = new Set<LaunchRegistry>();
/** Observers of every registry (the watchdog). */
const everywhere = new Set<RegistryObserver>();

/** The registry `api` owns: its own for a caller's client, the default one for ours. */
export function registryOf(api: BrowserApi): LaunchRegistry {
  let registry = owners.get(api);
  if (!registry) {
    registry = new LaunchRegistry();
    owners.set(api, registry);
  }
  return registry;
}

/** Marks a client launch/ built for itself: it shares the default registry. */
export function ownClient(api: BrowserApi): BrowserApi {
  owners.set(api, defaultRegistry);
  return api;
}

/** Every registry that holds a lease or a create in flight: what the exit paths end. */
export function liveRegistries(): LaunchRegistry[] {
  return [...live];
}

/** Observes the leases and creates of every registry, present and future. Returns the unsubscribe. */
export function observeRegistries(observer: RegistryObserver): () => void {
  everywhere.add(observer);
  return () => everywhere.delete(observer);
}
