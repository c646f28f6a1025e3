/**
 * One remote session this process holds, with its life as one explicit state and every change
 * of it made by one method (`#fire`) reading one table (`TRANSITIONS`):
 *
 * ```text
 *   open ──drop──▶ dropped ──running──▶ kept ──reattach──▶ reattached (a new RemoteSession holds it)
 *    │  ◀─────────────────────── delete-failed ──┐
 *    ├─keep──▶ handed-over (the user keeps it running: no longer ours)
 *    └─close | abandon | exit ─▶ ending ──deleted──▶ ended
 *   dropped ─service-ended─▶ ending;   kept ─window-passed | close | exit─▶ ending
 * ```
 *
 * "Kept" means one thing: in the reconnect window after a drop, still ours. The user keeping a
 * session running is `handed-over`; a re-attach taking it is `reattached`. Each DELETE is sent
 * through the tracker's one `end()` (tracker.ts), which writes the ledger's `ended` line; the
 * `deleting`, `delete-failed` and `ended by kept` lines are written by the transition itself.
 * Observers hear every transition (the reconnect window, the usage and geo features).
 */
import type { BrowserApi, Session } from '../browser-api/index.js';
import { createDebug } from '../http/debug.js';
import { isNotFoundError } from '../http/errors.js';
import { type SessionEnd, warnEnd } from './end-reason.js';
import { LaunchError } from './errors.js';
import type { Slot } from './slots.js';
import { DELETE_TIMEOUT_MS, type Lease, tracker } from './tracker.js';

const debug = createDebug('launch');

export const SESSION_STATES = [
  'open',
  'dropped',
  'kept',
  'ending',
  'ended',
  'handed-over',
  'reattached',
] as const;
export type SessionState = (typeof SESSION_STATES)[number];

export const SESSION_EVENTS = [
  /** The connection went away without close(). */
  'drop',
  /** The service says the dropped session still runs: it is kept for the reconnect window. */
  'running',
  /** The reconnect window passed without a re-attach. */
  'window-passed',
  /** A re-attach (connectRemote, a drop-in launch, a pool) takes the kept session over. */
  'reattach',
  /** close(), asyncDispose, a drop-in's or pool's end. */
  'close',
  /** The connect failed after the create. */
  'abandon',
  /** The service says the session is no longer running (after a drop: or did not answer). */
  'service-ended',
  /** The exit hooks (signals, beforeExit, uncaught errors). */
  'exit',
  /** keepSession, Puppeteer's disconnect(): the user keeps it running. */
  'keep',
  /** The DELETE answered (or 404: already gone). */
  'deleted',
  /** The DELETE failed: still running, still ours. */
  'delete-failed',
] as const;
export type SessionEvent = (typeof SESSION_EVENTS)[number];

export interface Transition {
  readonly next: SessionState;
  /** The request the transition sends. */
  readonly sends?: 'DELETE /sessions/{id}';
  /** The ledger line it writes (`ended` is written by the DELETE's answer: `ended close` or `ended gone`). */
  readonly ledger?: 'deleting' | 'ended' | 'ended kept' | 'delete-failed';
}

const END: Transition = { next: 'ending', sends: 'DELETE /sessions/{id}', ledger: 'deleting' };
const HAND_OVER: Transition = { next: 'handed-over', ledger: 'ended kept' };

/** Every state × event that changes something; an event missing from a state's row is ignored. */
export const TRANSITIONS: Readonly<
  Record<SessionState, Readonly<Partial<Record<SessionEvent, Transition>>>>
> = {
  open: {
    drop: { next: 'dropped' },
    'service-ended': END,
    close: END,
    abandon: END,
    exit: END,
    keep: HAND_OVER,
  },
  dropped: {
    running: { next: 'kept' },
    'service-ended': END,
    close: END,
    abandon: END,
    exit: END,
    keep: HAND_OVER,
  },
  kept: {
    'window-passed': END,
    reattach: { next: 'reattached' },
    'service-ended': END,
    close: END,
    abandon: END,
    exit: END,
    keep: HAND_OVER,
  },
  ending: {
    deleted: { next: 'ended', ledger: 'ended' },
    'delete-failed': { next: 'open', ledger: 'delete-failed' },
  },
  ended: {},
  'handed-over': {},
  reattached: {},
};

/** One transition, as observers hear it. */
export interface SessionTransition {
  readonly session: RemoteSession;
  readonly from: SessionState;
  readonly event: SessionEvent;
  readonly to: SessionState;
}

/** The events that end a session by a DELETE. */
export type EndEvent = 'close' | 'abandon' | 'exit' | 'service-ended' | 'window-passed';

/** The one timeout of "is it still running?" (`RemoteSession.probe`). */
export const PROBE_TIMEOUT_MS = 15_000;

export class RemoteSession implements Lease {
  readonly id: string;
  readonly api: BrowserApi;
  #state: SessionState = 'open';
  readonly #slot: Slot | undefined;
  #deleting: Promise<void> | undefined;
  #window: ReturnType<typeof setTimeout> | undefined;
  readonly #observers = new Set<(transition: SessionTransition) => void>();
  #endReason: SessionEnd | undefined;

  /** `slot`: the account slot the session's create took; released once the session is no longer ours. */
  constructor(api: BrowserApi, id: string, slot?: Slot) {
    this.api = api;
    this.id = id;
    this.#slot = slot;
    tracker.opened(this);
  }

  get state(): SessionState {
    return this.#state;
  }

  /** True until the session is deleted, handed over or re-attached: the exit hooks and the watchdog still end it. */
  get active(): boolean {
    return tracker.holds(this);
  }

  /** Why the session went away without close(), once known (`sessionOf(browser).endReason`). */
  get endReason(): SessionEnd | undefined {
    return this.#endReason;
  }

  /** Says why the session went away: stored as its end reason, and warned once. */
  report(end: SessionEnd): void {
    this.#endReason = end;
    tracker.reported(this.id, end);
    warnEnd(end);
  }

  /** Hears every transition of this session. Returns the unsubscribe. */
  observe(observer: (transition: SessionTransition) => void): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  /** The connection dropped without close(). False when the session was not open. */
  drop(): boolean {
    return this.#fire('drop') !== undefined;
  }

  /**
   * The dropped session still runs: kept for `windowMs` (still ours: exit hooks, watchdog,
   * ledger), then ended (`window-passed`) unless a re-attach or a close comes first.
   */
  keepFor(windowMs: number): boolean {
    if (!this.#fire('running')) return false;
    this.#window = setTimeout(() => {
      this.release('window-passed').catch(() => undefined);
    }, windowMs);
    this.#window.unref();
    return true;
  }

  /** Leave the session running (keepSession, Puppeteer's disconnect()). */
  keep(): void {
    this.#fire('keep');
  }

  /**
   * A re-attach in this process takes the kept session: no longer this object's, no ledger line
   * (it is still ours). Returns the account slot it held, for the new session to hold; undefined
   * when it was not kept. Make the new RemoteSession right after, with nothing awaited between,
   * so the watchdog never misses the session.
   */
  handOff(): Slot | undefined {
    return this.#fire('reattach') ? this.#slot : undefined;
  }

  /**
   * Ends the session with one DELETE (concurrent and later calls share it); a 404 counts as
   * deleted. After a failed DELETE the session is open again and the next call tries again. A
   * session handed over or re-attached is not ours to delete: resolves at once.
   */
  release(event: EndEvent = 'close'): Promise<void> {
    if (this.#deleting) return this.#deleting;
    if (this.#fire(event)?.next !== 'ending') return Promise.resolve();
    this.#deleting = this.#delete().catch((error: unknown) => {
      this.#deleting = undefined;
      throw error;
    });
    return this.#deleting;
  }

  /**
   * "Is it still running?": `GET /sessions/{id}` with the one timeout (and the caller's signal).
   * Undefined when the service no longer knows it (404, past retention); rejects when it did not
   * answer: the caller decides.
   */
  async probe(signal?: AbortSignal): Promise<Session | undefined> {
    try {
      return await this.api.sessions.retrieve(this.id, {
        timeout: PROBE_TIMEOUT_MS,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (isNotFoundError(error)) return undefined;
      throw error;
    }
  }

  async #delete(): Promise<void> {
    try {
      // A gone session (404) counts as deleted.
      if (
        (await tracker.end(this.api, this.id, 'close', { timeout: DELETE_TIMEOUT_MS })) ===
        'deleted'
      )
        debug(`session ${this.id} deleted`);
    } catch (error) {
      this.#fire('delete-failed');
      throw new LaunchError(
        `session ${this.id} is still running: deleting it failed (${(error as Error).message}). ` +
          `close() again to retry, or end it with \`remote-browser sessions end ${this.id}\` ` +
          '(`remote-browser sessions reap` ends every session whose delete failed)',
        { cause: error, sessionId: this.id },
      );
    }
    this.#fire('deleted');
  }

  /** The one transition method: reads the table, changes the state, does what the table says. */
  #fire(event: SessionEvent): Transition | undefined {
    const from = this.#state;
    const transition = TRANSITIONS[from][event];
    if (!transition) return undefined;
    const to = transition.next;
    this.#state = to;
    if (from === 'kept') {
      clearTimeout(this.#window);
      this.#window = undefined;
    }
    if (transition.ledger === 'deleting') tracker.ending(this);
    else if (transition.ledger === 'delete-failed') tracker.endFailed(this);
    if (to === 'handed-over') {
      // No longer ours to clean up: a later reap must not end a session the user kept.
      tracker.handedOver(this);
      this.#slot?.release();
    } else if (to === 'reattached') {
      tracker.closed(this);
    } else if (to === 'ended') {
      tracker.closed(this);
      this.#slot?.release();
    }
    for (const observer of this.#observers) observer({ session: this, from, event, to });
    return transition;
  }
}

/** Deletes every session this process still holds (the exit paths, tests). Never throws. */
export async function releaseAll(): Promise<void> {
  await Promise.allSettled(tracker.leases().map((lease) => lease.release('exit')));
}
