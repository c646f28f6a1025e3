/**
 * The one owner of every session and create this process must end. Each transition happens
 * here, writes its ledger line here (ledger.ts) and tells the watchdog here (its observers):
 *
 * - a create: `sent` (an intent in the ledger before the request leaves) → `answered` (its
 *   session is known before the intent closes) | `refused` (nothing created: the intent
 *   closes) | `lost` (no answer: the sessions it may have made are found and ended, then the
 *   intent closes) | `abandoned` (the launch gave up: it finishes in the background and what it
 *   returns is ended);
 * - a session: its states and transitions are its RemoteSession's (remote-session.ts); the
 *   tracker holds every session still ours (`opened` until `closed`), writes the ledger lines
 *   they ask for, and sends each DELETE once (`end()`).
 *
 * The live path (create-session.ts, remote-session.ts), the exit hooks, the watchdog and `reap`
 * all call into it. One per process (`tracker`), as the exit hooks and the watchdog are: a
 * client's sessions are ended on exit even if nothing else references the client. Each DELETE
 * is sent once however many paths ask.
 */
import type { BrowserApi, SessionCreated, SessionCreateParams } from '../browser-api/index.js';
import type { CallOptions, CallScope } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import { isApiError, isConnectionError, isNotFoundError, isTimeoutError } from '../http/errors.js';
import { nodeCrypto, sleep } from '../http/node-builtins.js';
import type { SessionEnd } from './end-reason.js';
import { LaunchError } from './errors.js';
import {
  type CreateIntent,
  type EndedBy,
  findOrphans,
  knownIds,
  type RunningSession,
  recordCreated,
  recordCreateSettled,
  recordCreating,
  recordDeleteFailed,
  recordDeleting,
  recordEnded,
  targetingOf,
} from './ledger.js';
import { AccountSlots, type Slot } from './slots.js';

const debug = createDebug('launch');

/** Second look for a session the service finished creating after the response was lost. */
const RECHECK_AFTER_MS = 2_000;
/** Each request of a reconciliation or an exit path. */
const CLEANUP_TIMEOUT_MS = 15_000;
/** A DELETE the live path (a lease, an abandoned create's hand-off) sends. */
export const DELETE_TIMEOUT_MS = 30_000;

/**
 * How many ended sessions `end()` keeps answering from memory. The paths that may ask twice (a
 * close() racing the exit hooks, a reconciliation, a late create's hand-off) ask within seconds
 * of each other; a crawler that ends a session every second for a week would otherwise keep
 * 600,000 answers. Past this, an old id asked again is sent a second DELETE, which ends
 * nothing: the session ended long ago.
 */
export const REMEMBERED_ENDS = 1024;

/** A create on the wire. */
export interface TrackedCreate {
  readonly intent: CreateIntent;
  readonly api: BrowserApi;
  readonly call: Promise<SessionCreated>;
}

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

/** How a DELETE ended: the session was deleted, or had already ended (404). */
export type Ended = 'deleted' | 'gone';

/** What became of a create, as far as its caller saw. */
type Outcome = { created: string } | { error: unknown } | { pending: true };

/** True when the create may have been handled although its answer never arrived. */
export function isLostCreate(error: unknown): boolean {
  return (
    isTimeoutError(error) ||
    (isConnectionError(error) && error.requestSent) ||
    // A gateway in front of the service gave up waiting: the service may have finished.
    (isApiError(error) && (error.status === 502 || error.status === 504))
  );
}

export class SessionTracker {
  /** Session ids a create handed this process (reconciliation never touches them). */
  readonly #created = new Set<string>();
  readonly #creates = new Map<string, TrackedCreate>();
  readonly #leases = new Set<Lease>();
  /** One DELETE per session: every path that ends one shares it. */
  readonly #ends = new Map<string, Promise<Ended>>();
  /** The keys of `#ends` whose DELETE has answered, oldest first, with their session ids. */
  readonly #settledEnds = new Map<string, string>();
  readonly #observers = new Set<TrackerObserver>();
  /** Background clean-ups per client, so a client launch/ built is closed only after them. */
  readonly #cleanups = new WeakMap<BrowserApi, Set<Promise<unknown>>>();
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

  /** Creates not yet settled. */
  creates(): TrackedCreate[] {
    return [...this.#creates.values()];
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

  // ── creates ──────────────────────────────────────────────────────────────────────────────

  /** `sent`: records the intent and tells the watchdog, then sends the create. */
  createSent(
    api: BrowserApi,
    body: SessionCreateParams,
    send: () => Promise<SessionCreated>,
  ): TrackedCreate {
    const intent: CreateIntent = {
      intent: nodeCrypto().randomUUID(),
      origin: api.origin,
      pid: process.pid,
      at: new Date().toISOString(),
      targeting: targetingOf(body),
    };
    recordCreating(intent);
    let call: Promise<SessionCreated> | undefined;
    const create: TrackedCreate = {
      intent,
      api,
      get call() {
        return call as Promise<SessionCreated>;
      },
    };
    // Known (and the watchdog told) before the request leaves.
    this.#creates.set(intent.intent, create);
    this.#emit((o) => o.create?.(intent, 'started'));
    call = send();
    void call.then(
      (created) => this.#answered(create, created.id),
      () => {},
    );
    return create;
  }

  /** `answered`: the session is known before the intent closes, so no reader sees neither. */
  #answered(create: TrackedCreate, id: string): void {
    this.#created.add(id);
    recordCreated(id, create.api.origin);
    this.#settle(create, id);
  }

  /** `refused`: the create failed without creating anything. */
  refused(create: TrackedCreate): void {
    this.#settle(create);
  }

  #settle(create: TrackedCreate, createdId?: string): void {
    if (!this.#creates.delete(create.intent.intent)) return;
    recordCreateSettled(create.intent.intent);
    this.#emit((o) => o.create?.(create.intent, 'settled', createdId));
  }

  /**
   * `lost`: the create got no answer. Ends what it may have left running, settles its intent;
   * returns the launch's error. Never repeated blindly.
   */
  async lost(create: TrackedCreate, what: string, error: unknown): Promise<LaunchError> {
    const ended = await this.#afterCreate(create, { error }, true).catch((e: unknown) => {
      debug(`reconciliation failed: ${(e as Error).message}`);
      return undefined;
    });
    const outcome =
      ended === undefined
        ? 'reconciliation could not list the running sessions; run `remote-browser sessions reap` to be sure nothing is left running'
        : ended.length > 0
          ? `the session the service created meanwhile (${ended.join(', ')}) was ended`
          : 'no session was left running';
    return new LaunchError(
      `${what}: the create request got no answer (${(error as Error).message}); ${outcome}. It was not retried.`,
      { cause: error, sessionId: ended?.[0] },
    );
  }

  /**
   * `abandoned`: the launch's timeout or signal fired while the create was on the wire. It is
   * never cut off mid-flight (the service could finish it a moment later, leaving a session
   * nobody knows): it finishes in the background and what it returns is ended. Returns the
   * launch's error.
   */
  abandoned(create: TrackedCreate, scope: CallScope, what: string, error: unknown): LaunchError {
    const { api, call } = create;
    const outcome = call.then(
      (created): Outcome => {
        debug(`deleting session ${created.id}: its launch gave up while it was being created`);
        return { created: created.id };
      },
      (late: unknown): Outcome => ({ error: late }),
    );
    this.#track(
      api,
      outcome.then((o) => this.#afterCreate(create, o, true)),
    );
    return new LaunchError(
      `${what}: ${scope.abortError(what).message.replace(`${what}: `, '')} while the service was creating the session; it will be deleted as soon as the service answers (the create was not retried)`,
      { cause: error },
    );
  }

  /**
   * How a create ended, decided in this one place for every path: a session it returned is
   * ended; a refusal settles the intent; a lost answer (or none yet, on the way out) is
   * reconciled, and the intent settles once that found something or the create answered.
   * `thorough`: wait for this process's other creates first, and look twice (the live path);
   * else look once (the exit paths). Returns the ids ended.
   */
  async #afterCreate(
    create: TrackedCreate,
    outcome: Outcome,
    thorough: boolean,
  ): Promise<string[]> {
    if ('created' in outcome) {
      const { api } = create;
      const timeout = thorough ? DELETE_TIMEOUT_MS : CLEANUP_TIMEOUT_MS;
      await this.end(api, outcome.created, 'close', { timeout }).catch(() => undefined);
      return [outcome.created];
    }
    if ('error' in outcome && !isLostCreate(outcome.error)) {
      this.#settle(create);
      return [];
    }
    const ended = await this.#reconcile(create, thorough);
    if (ended.length > 0 || 'error' in outcome) this.#settle(create);
    return ended;
  }

  /**
   * Ends the running sessions that may be this create's (ledger.ts `findOrphans`); looks twice,
   * a moment apart, when `thorough`, for a create the service completes late.
   */
  async #reconcile(create: TrackedCreate, thorough: boolean): Promise<string[]> {
    const { api, intent } = create;
    // Let this process's other creates finish, so their sessions count as known.
    if (thorough) {
      const others = this.creates().filter((c) => c !== create);
      await Promise.allSettled(others.map((c) => c.call));
    }
    const ended: string[] = [];
    for (let look = 0; look < (thorough ? 2 : 1); look++) {
      if (look > 0) await sleep(RECHECK_AFTER_MS);
      const known = new Set([...knownIds(), ...this.#created, ...ended]);
      const orphans = findOrphans(await listRunning(api), [intent], known);
      await Promise.all(
        orphans.map((s) =>
          this.end(api, s.id, 'reap', { timeout: CLEANUP_TIMEOUT_MS }).catch(() => undefined),
        ),
      );
      ended.push(...orphans.map((s) => s.id));
    }
    if (ended.length) debug(`reconciled: ended ${ended.join(', ')}`);
    return ended;
  }

  // ── sessions ─────────────────────────────────────────────────────────────────────────────

  /** `opened`: a lease holds the session. One adopted from elsewhere gets its `created` line here. */
  opened(lease: Lease): void {
    if (!this.#created.has(lease.id)) recordCreated(lease.id, lease.api.origin);
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
      this.#created.delete(oldId);
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
      ...this.creates().map((c) => this.#endCreate(c, graceMs)),
    ]);
    // Leases that a create finishing meanwhile opened.
    await this.#releaseAll();
  }

  async #releaseAll(): Promise<void> {
    await Promise.allSettled(this.leases().map((lease) => lease.release('exit')));
  }

  async #endCreate(create: TrackedCreate, graceMs: number): Promise<void> {
    const timer = new AbortController();
    const outcome: Outcome = await Promise.race([
      create.call.then(
        (c): Outcome => ({ created: c.id }),
        (error: unknown): Outcome => ({ error }),
      ),
      sleep(graceMs, { pending: true } as const, { signal: timer.signal, ref: false }).catch(
        (): Outcome => ({ pending: true }),
      ),
    ]);
    timer.abort();
    await this.#afterCreate(create, outcome, false);
  }

  #track(api: BrowserApi, work: Promise<unknown>): void {
    let set = this.#cleanups.get(api);
    if (!set) {
      set = new Set();
      this.#cleanups.set(api, set);
    }
    const entry = work.catch(() => {});
    set.add(entry);
    void entry.finally(() => set.delete(entry));
  }

  /** Resolves when every background clean-up started for `api` has settled. */
  settledCleanups(api: BrowserApi): Promise<void> {
    return Promise.allSettled([...(this.#cleanups.get(api) ?? [])]).then(() => undefined);
  }

  #emit(call: (observer: TrackerObserver) => void): void {
    for (const o of this.#observers) call(o);
  }
}

/** The process's one tracker. */
export const tracker = new SessionTracker();

function listRunning(api: BrowserApi): Promise<RunningSession[]> {
  return api.sessions.list({ status: 'running' }, { timeout: CLEANUP_TIMEOUT_MS }).then((list) =>
    list.map((s) => ({
      id: s.id,
      created_at: s.created_at,
      config: s.config as Record<string, unknown> | undefined,
    })),
  );
}

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
