/**
 * The creates this process has on the wire, each until it is settled: `sent` (an intent in the
 * ledger before the request leaves) → `answered` (its session is known before the intent
 * closes) | `refused` (nothing created: the intent closes) | `lost` (no answer: the sessions it
 * may have made are found and ended, then the intent closes) | `abandoned` (the launch gave up:
 * it finishes in the background and what it returns is ended). The registry (tracker.ts)
 * builds on it: the sessions a create returns are its to end.
 */
import type { BrowserApi, SessionCreated, SessionCreateParams } from '../browser-api/index.js';
import type { CallOptions, CallScope } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import { isApiError, isConnectionError, isTimeoutError } from '../http/errors.js';
import { nodeCrypto, sleep } from '../http/node-builtins.js';
import { LaunchError } from './errors.js';
import {
  type CreateIntent,
  contestedIntents,
  type EndedBy,
  findOrphans,
  knownIds,
  type RunningSession,
  recordCreated,
  recordCreateSettled,
  recordCreating,
  targetingOf,
} from './ledger.js';

const debug = createDebug('launch');

/** Second look for a session the service finished creating after the response was lost. */
const RECHECK_AFTER_MS = 2_000;
/** Each request of a reconciliation or an exit path. */
export const CLEANUP_TIMEOUT_MS = 15_000;
/** A DELETE the live path (a lease, an abandoned create's hand-off) sends. */
export const DELETE_TIMEOUT_MS = 30_000;

/** A create on the wire. */
export interface TrackedCreate {
  readonly intent: CreateIntent;
  readonly api: BrowserApi;
  readonly call: Promise<SessionCreated>;
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

export abstract class CreateTracker {
  /** Session ids a create handed this process (reconciliation never touches them). */
  protected readonly created = new Set<string>();
  readonly #creates = new Map<string, TrackedCreate>();
  /** Background clean-ups per client, so a client launch/ built is closed only after them. */
  readonly #cleanups = new WeakMap<BrowserApi, Set<Promise<unknown>>>();

  /** Sends `DELETE /sessions/{id}` once however many paths ask (the registry's). */
  abstract end(api: BrowserApi, id: string, by: EndedBy, call: CallOptions): Promise<Ended>;

  /** Tells the observers (the watchdog) a create started or settled. */
  protected abstract createChanged(
    intent: CreateIntent,
    event: 'started' | 'settled',
    createdId?: string,
  ): void;

  /** Creates not yet settled. */
  creates(): TrackedCreate[] {
    return [...this.#creates.values()];
  }

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
    this.createChanged(intent, 'started');
    call = send();
    void call.then(
      (created) => this.#answered(create, created.id),
      () => {},
    );
    return create;
  }

  /** `answered`: the session is known before the intent closes, so no reader sees neither. */
  #answered(create: TrackedCreate, id: string): void {
    this.created.add(id);
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
    this.createChanged(create.intent, 'settled', createdId);
  }

  /**
   * `lost`: the create got no answer. Ends what it may have left running, settles its intent;
   * returns the launch's error. Never repeated blindly.
   */
  async lost(create: TrackedCreate, what: string, error: unknown): Promise<LaunchError> {
    const found = await this.#afterCreate(create, { error }, true).catch((e: unknown) => {
      debug(`reconciliation failed: ${(e as Error).message}`);
      return undefined;
    });
    const ended = found?.ended ?? [];
    const endedPart = ended.length
      ? `the session the service created meanwhile (${ended.join(', ')}) was ended`
      : undefined;
    const leftPart =
      "a running session another process's create to this service may have made was left to that process; once it has exited, `remote-browser sessions reap` ends it if it was this create's";
    const outcome =
      found === undefined
        ? 'reconciliation could not list the running sessions; run `remote-browser sessions reap` to be sure nothing is left running'
        : found.contested
          ? [endedPart, leftPart].filter(Boolean).join(', and ')
          : (endedPart ?? 'no session was left running');
    return new LaunchError(
      `${what}: the create request got no answer (${(error as Error).message}); ${outcome}. It was not retried.`,
      { cause: error, sessionId: ended[0] },
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
   * else look once (the exit paths). Returns the ids ended, and whether a session was left to
   * another process's create (`contested`).
   */
  async #afterCreate(
    create: TrackedCreate,
    outcome: Outcome,
    thorough: boolean,
  ): Promise<{ ended: string[]; contested: boolean }> {
    if ('created' in outcome) {
      const { api } = create;
      const timeout = thorough ? DELETE_TIMEOUT_MS : CLEANUP_TIMEOUT_MS;
      await this.end(api, outcome.created, 'close', { timeout }).catch(() => undefined);
      return { ended: [outcome.created], contested: false };
    }
    if ('error' in outcome && !isLostCreate(outcome.error)) {
      this.#settle(create);
      return { ended: [], contested: false };
    }
    const found = await this.#reconcile(create, thorough);
    // A session another live process's create may have made was left: the reap settles it.
    if (!found.contested && (found.ended.length > 0 || 'error' in outcome)) this.#settle(create);
    return found;
  }

  /**
   * Ends the running sessions that may be this create's (ledger.ts `findOrphans`); looks twice,
   * a moment apart, when `thorough`, for a create the service completes late.
   */
  async #reconcile(
    create: TrackedCreate,
    thorough: boolean,
  ): Promise<{ ended: string[]; contested: boolean }> {
    const { api, intent } = create;
    // Let this process's other creates finish, so their sessions count as known.
    if (thorough) {
      const others = this.creates().filter((c) => c !== create);
      await Promise.allSettled(others.map((c) => c.call));
    }
    const ended: string[] = [];
    let left = false;
    for (let look = 0; look < (thorough ? 2 : 1); look++) {
      if (look > 0) await sleep(RECHECK_AFTER_MS);
      const running = await listRunning(api);
      // Read after the list: what another process recorded meanwhile counts.
      const known = new Set([...knownIds(), ...this.created, ...ended]);
      // This process's other creates are awaited first (thorough) or ended alongside (the way out).
      const contested = contestedIntents(new Set([intent.intent]), api.origin).filter(
        (other) => other.pid !== process.pid,
      );
      const orphans = findOrphans(running, [intent], known, contested);
      left = findOrphans(running, [intent], known).length > orphans.length;
      await Promise.all(
        orphans.map((s) =>
          this.end(api, s.id, 'reap', { timeout: CLEANUP_TIMEOUT_MS }).catch(() => undefined),
        ),
      );
      ended.push(...orphans.map((s) => s.id));
    }
    if (ended.length) debug(`reconciled: ended ${ended.join(', ')}`);
    if (left) debug('reconciled: a session another process may have created was left to the reap');
    return { ended, contested: left };
  }

  /** On the way out (`endEverything`): a create that answers within `graceMs` has its session ended, else it is reconciled once. */
  protected async endCreate(create: TrackedCreate, graceMs: number): Promise<void> {
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
}

function listRunning(api: BrowserApi): Promise<RunningSession[]> {
  return api.sessions.list({ status: 'running' }, { timeout: CLEANUP_TIMEOUT_MS }).then((list) =>
    list.map((s) => ({
      id: s.id,
      created_at: s.created_at,
      config: s.config as Record<string, unknown> | undefined,
    })),
  );
}
