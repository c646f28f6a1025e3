/**
 * What this process's sessions and queries cost: for every session it created or re-attached,
 * its minutes, how it ended, the minutes it waited for a slot (429) and whether it was a
 * pre-warm nobody used; and the credits its query submits charged and its failed rows refunded.
 *
 * Minutes are `ended_at - created_at` as the service records them (browser-api.md, Session):
 * that record is read where the library already asks for it (a drop, a warm check) and by
 * `settleUsage()` (one `GET /sessions/{id}` per session whose record is missing, never during
 * a launch or a test). Until then a session's minutes are an estimate on this machine's clock,
 * from the create's answer to the DELETE's, and say so (`estimated: true`). Credits are the
 * spec's charge, questions x platforms at submit, less one per failed row (capped at the
 * charge): the account's balance is the service's own record.
 *
 * Fed by narrow hooks (UsageRecorder's methods), called from the tracker's observer, the create
 * path, the lease paths, the pools and the account client's credit meter, so the same recorder
 * can be plumbed onto another session object.
 */
import type { SessionEndReason } from './end-reason.js';
import type { EndedBy } from './ledger.js';

/** How a session ended, as far as this process knows. */
export type UsageEnd =
  /** close(), disposal, a pool or fixture ending it: the normal way. */
  | 'closed'
  | 'idle_timeout'
  | 'max_duration'
  | 'deleted_elsewhere'
  /** Unknown to the service when asked (past retention). */
  | 'gone'
  /** Its connection dropped and nobody re-attached within the window (or the re-attach failed). */
  | 'dropped'
  /** Ended by the exit hooks (signal, beforeExit, uncaught error). */
  | 'exit_hooks'
  | 'watchdog'
  | 'reap'
  /** Handed over to the user (`keepSession`, Puppeteer's disconnect()): still running, no longer counted. */
  | 'kept'
  /** Ended by the library because a `sessionMinutes` budget was spent. */
  | 'budget';

export interface SessionUsage {
  id: string;
  /** `created`: this process's create; `reattached`: a session it attached to (connectRemote). */
  source: 'created' | 'reattached';
  /** Creation time: the service's `created_at` once read, else this machine's clock at the create's answer. */
  startedAt: string;
  /** End time (the service's `ended_at` once read); null while it runs. */
  endedAt: string | null;
  /** Session minutes (to now while it runs). */
  minutes: number;
  /** True while `startedAt`/`endedAt` come from this machine's clock, not the service's record. */
  estimated: boolean;
  /** Null while it runs. */
  end: UsageEnd | null;
  /** Minutes lost: from the last activity to an idle or lifetime end, or all of an unused pre-warm. */
  lostMinutes: number;
  /** Minutes its launch waited for a free slot after a 429. */
  slotWaitMinutes: number;
  /** Times a dropped connection was re-attached to it. */
  reattaches: number;
  /** Set on a pool's pre-warmed session: whether a caller took it. */
  prewarm?: 'used' | 'unused';
  pid: number;
}

export interface UsageTotals {
  sessions: number;
  running: number;
  minutes: number;
  lostMinutes: number;
  /** Sessions ended by the service's idle timeout or maximum lifetime. */
  timedOut: number;
  unusedPrewarms: number;
  slotWaitMinutes: number;
  /** True when any session's minutes are still an estimate. */
  estimated: boolean;
  credits: { charged: number; refunded: number; net: number };
}

export interface Usage {
  totals: UsageTotals;
  sessions: SessionUsage[];
  queries: { requestId: string; charged: number; refunded: number }[];
}

const MINUTE = 60_000;
const round = (n: number) => Math.round(n * 1000) / 1000;

interface Entry {
  usage: Omit<SessionUsage, 'minutes' | 'lostMinutes'>;
  startMs: number;
  endMs: number | undefined;
  lastActivityMs: number | undefined;
  cause: UsageEnd | undefined;
}

export interface UsageListener {
  /** A session ended: its final minutes (an estimate until settled). */
  ended?(usage: SessionUsage): void;
}

export class UsageRecorder {
  readonly #sessions = new Map<string, Entry>();
  readonly #queries = new Map<string, { charged: number; refunded: Set<string> }>();
  readonly #listeners = new Set<UsageListener>();
  #exiting = false;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  listen(listener: UsageListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A create answered with session `id` (after `slotWaitMs` waiting for a slot). */
  created(id: string, slotWaitMs = 0): void {
    if (this.#sessions.has(id)) return;
    this.#add(id, 'created', slotWaitMs);
  }

  /** A lease opened on `id`: a session this process did not create is a re-attached one. */
  opened(id: string): void {
    if (!this.#sessions.has(id)) this.#add(id, 'reattached', 0);
  }

  /** A dropped connection was re-attached to `id` (a new lease on a session already counted). */
  reattached(id: string): void {
    const entry = this.#sessions.get(id);
    if (entry) entry.usage.reattaches++;
  }

  /** Time the slot wait of a create that then answered with `id`. */
  waited(id: string, ms: number): void {
    const entry = this.#sessions.get(id);
    if (entry) entry.usage.slotWaitMinutes += ms / MINUTE;
  }

  /** CDP activity seen on `id` (the start of lost minutes when a timeout ends it). */
  touched(id: string): void {
    const entry = this.#sessions.get(id);
    if (entry) entry.lastActivityMs = this.#now();
  }

  /** A pool launched `id` ahead of need; `used` once a caller takes it. */
  prewarm(id: string, state: 'used' | 'unused'): void {
    const entry = this.#sessions.get(id);
    if (entry) entry.usage.prewarm = state;
  }

  /** Why `id` went away, said before its end is recorded (end-reason.ts, a budget). */
  cause(id: string, reason: SessionEndReason | 'budget'): void {
    const entry = this.#sessions.get(id);
    if (!entry || entry.usage.end) return;
    if (reason === 'connection_lost') return;
    entry.cause =
      reason === 'window_passed' || reason === 'reattach_failed' ? 'dropped' : (reason as UsageEnd);
  }

  /** The exit hooks are ending everything: ends from now on are theirs. */
  exiting(): void {
    this.#exiting = true;
  }

  /** The service's own record of `id` (a drop's lookup, a warm check, settleUsage). */
  serviceRecord(id: string, session: { created_at: string; ended_at: string | null }): void {
    const entry = this.#sessions.get(id);
    const created = Date.parse(session.created_at);
    if (!entry || !Number.isFinite(created)) return;
    entry.usage.startedAt = new Date(created).toISOString();
    const ended = session.ended_at === null ? Number.NaN : Date.parse(session.ended_at);
    // Moved onto the service's clock; an end seen here but not yet there stays an estimate.
    if (Number.isFinite(ended)) {
      if (entry.lastActivityMs !== undefined)
        entry.lastActivityMs = created + (entry.lastActivityMs - entry.startMs);
      entry.startMs = created;
      entry.endMs = ended;
      entry.usage.endedAt = new Date(ended).toISOString();
      entry.usage.estimated = false;
    }
  }

  /** `id` ended (the tracker's one `ended` per session); `by` is the ledger's word for who ended it. */
  ended(id: string, by: EndedBy): void {
    const entry = this.#sessions.get(id);
    if (!entry || entry.usage.end) return;
    if (entry.endMs === undefined) {
      entry.endMs = this.#now();
      entry.usage.endedAt = new Date(entry.endMs).toISOString();
    }
    const byLedger: Record<EndedBy, UsageEnd> = {
      close: this.#exiting ? 'exit_hooks' : 'closed',
      watchdog: 'watchdog',
      reap: 'reap',
      kept: 'kept',
      gone: 'gone',
    };
    entry.usage.end = entry.cause ?? byLedger[by];
    const usage = this.#view(entry);
    for (const l of this.#listeners) l.ended?.(usage);
  }

  /** A submit charged `credits` for batch `requestId`. */
  charged(requestId: string, credits: number): void {
    const query = this.#queries.get(requestId) ?? { charged: 0, refunded: new Set<string>() };
    query.charged += credits;
    this.#queries.set(requestId, query);
  }

  /** Row `rowKey` of `requestId` failed: its credit was refunded. Returns whether it was new. */
  refunded(requestId: string, rowKey: string): boolean {
    const query = this.#queries.get(requestId);
    if (!query || query.refunded.has(rowKey) || query.refunded.size >= query.charged) return false;
    query.refunded.add(rowKey);
    return true;
  }

  /** Ended sessions whose minutes are still an estimate (settleUsage asks the service). */
  unsettled(): string[] {
    return [...this.#sessions.values()]
      .filter((e) => e.usage.end !== null && e.usage.estimated && e.usage.end !== 'kept')
      .map((e) => e.usage.id);
  }

  /** Totals and one entry per session and per query batch. */
  usage(): Usage {
    const sessions = [...this.#sessions.values()].map((e) => this.#view(e));
    const queries = [...this.#queries].map(([requestId, q]) => ({
      requestId,
      charged: q.charged,
      refunded: q.refunded.size,
    }));
    const sum = (pick: (s: SessionUsage) => number) =>
      round(sessions.reduce((n, s) => n + pick(s), 0));
    const charged = queries.reduce((n, q) => n + q.charged, 0);
    const refunded = queries.reduce((n, q) => n + q.refunded, 0);
    return {
      totals: {
        sessions: sessions.length,
        running: sessions.filter((s) => s.end === null).length,
        minutes: sum((s) => s.minutes),
        lostMinutes: sum((s) => s.lostMinutes),
        timedOut: sessions.filter((s) => s.end === 'idle_timeout' || s.end === 'max_duration')
          .length,
        unusedPrewarms: sessions.filter((s) => s.prewarm === 'unused').length,
        slotWaitMinutes: sum((s) => s.slotWaitMinutes),
        estimated: sessions.some((s) => s.estimated),
        credits: { charged, refunded, net: charged - refunded },
      },
      sessions,
      queries,
    };
  }

  #add(id: string, source: SessionUsage['source'], slotWaitMs: number): Entry {
    const startMs = this.#now();
    const entry: Entry = {
      usage: {
        id,
        source,
        startedAt: new Date(startMs).toISOString(),
        endedAt: null,
        estimated: true,
        end: null,
        slotWaitMinutes: slotWaitMs / MINUTE,
        reattaches: 0,
        pid: process.pid,
      },
      startMs,
      endMs: undefined,
      lastActivityMs: undefined,
      cause: undefined,
    };
    this.#sessions.set(id, entry);
    return entry;
  }

  #view(entry: Entry): SessionUsage {
    const endMs = entry.endMs ?? this.#now();
    const minutes = Math.max(0, endMs - entry.startMs) / MINUTE;
    const end = entry.usage.end;
    const timedOut = end === 'idle_timeout' || end === 'max_duration';
    const lost = timedOut
      ? Math.max(0, endMs - (entry.lastActivityMs ?? entry.startMs)) / MINUTE
      : entry.usage.prewarm === 'unused'
        ? minutes
        : 0;
    return {
      ...entry.usage,
      minutes: round(minutes),
      lostMinutes: round(Math.min(lost, minutes)),
      slotWaitMinutes: round(entry.usage.slotWaitMinutes),
    };
  }
}
