/**
 * A drop is not a close. When the connection of a session this process holds drops without
 * close(), the service is asked what happened (`GET /sessions/{id}`):
 *
 * - still running → the session is kept for the reconnect window (the tracker's `kept` state:
 *   still ours, so the exit hooks, the watchdog and the ledger keep covering it, and the
 *   tracker deletes it when the window passes), in which `connectRemote(id)` takes it over
 *   (`takeKept`, then the lease's hand-off);
 * - ended → nothing to keep; the reason is inferred (end-reason.ts) and said;
 * - 404 → past retention; an unanswered lookup → ended as before (fail closed).
 *
 * The kept sessions are process-wide, by id: `connectRemote(id)` may use another client than
 * the launch did. The window's timer is unref'd: a process with nothing else to do exits, and
 * its exit hooks (or the watchdog) end the kept session like any other.
 */

import type { BrowserApi } from '../browser-api/index.js';
import { createDebug } from '../http/debug.js';
import { isNotFoundError } from '../http/errors.js';
import { describeEnd, inferEndReason, type SessionEnd, type SessionLimits } from './end-reason.js';
import type { Slot } from './slots.js';
import { type Lease, tracker } from './tracker.js';

const debug = createDebug('launch');

/** Default of the `reconnectWindowMs` option. */
export const DEFAULT_RECONNECT_WINDOW_MS = 60_000;

/** What one dropped session needs from its launch. */
export interface Dropped {
  api: BrowserApi;
  id: string;
  windowMs: number;
  limits: SessionLimits;
  /**
   * The last CDP activity this process saw: ms after the lease was made (`sinceLeaseMs`), and
   * whether this process launched the session (then the lease began at its `created_at`).
   */
  activity: { sinceLeaseMs: number; launched: boolean; atMs: number };
  /** False once close() or a keep has started: then the drop was expected. */
  stillDropped(): boolean;
  /** Says why (warning, `sessionOf(browser).endReason`). */
  report(end: SessionEnd): void;
  /** Ends the session: the lease's DELETE (a no-op for an ended one), recordings, the client. */
  end(): Promise<void>;
  /** The session's lease: kept for the window (`keepFor`), watched for its end. */
  lease: Lease & { keepFor(windowMs: number): void };
  /**
   * Gives the session up to the re-attaching launch: the lease is closed without a DELETE or a
   * ledger line, and its account slot is returned for the new lease to hold.
   */
  handOff(): Slot | undefined;
}

interface Kept {
  dropped: Dropped;
  unsubscribe(): void;
}

const kept = new Map<string, Kept>();

/** Decides what a drop means for the session, as the module comment says. Never throws. */
export async function handleDrop(dropped: Dropped): Promise<void> {
  const { api, id, windowMs } = dropped;
  if (windowMs <= 0) return endQuietly(dropped);
  let session: Awaited<ReturnType<BrowserApi['sessions']['retrieve']>>;
  try {
    session = await api.sessions.retrieve(id, { timeout: 15_000 });
  } catch (error) {
    if (!dropped.stillDropped()) return;
    if (isNotFoundError(error)) dropped.report(describeEnd(id, 'gone'));
    else
      debug(`session ${id}: asking the service after a drop failed: ${(error as Error).message}`);
    return endQuietly(dropped);
  }
  if (!dropped.stillDropped()) return;
  if (session.status !== 'running') {
    dropped.report(serviceEnd(id, session, dropped.limits, dropped.activity));
    return endQuietly(dropped);
  }
  dropped.report(describeEnd(id, 'connection_lost', { windowMs }));
  const passesAt = Date.now() + windowMs;
  const unsubscribe = tracker.observe({
    lease(lease, event) {
      if (lease !== dropped.lease || event !== 'closed' || kept.get(id)?.dropped !== dropped)
        return;
      // The tracker ended it: the window passed, or an exit path came first.
      kept.delete(id);
      unsubscribe();
      if (Date.now() >= passesAt - 100) {
        dropped.report(describeEnd(id, 'window_passed', { windowMs }));
      }
      void endQuietly(dropped);
    },
  });
  // Two browsers on one session that both dropped: the later one's window counts.
  takeKept(id);
  kept.set(id, { dropped, unsubscribe });
  dropped.lease.keepFor(windowMs);
}

/**
 * The line for session `id` that the service says is no longer running: the reason inferred
 * (end-reason.ts) from its times, its limits and the last activity this process saw.
 */
export function serviceEnd(
  id: string,
  session: { created_at: string; ended_at: string | null },
  limits: SessionLimits,
  activity: Dropped['activity'],
): SessionEnd {
  const { sinceLeaseMs, launched, atMs } = activity;
  const lastActivity = launched ? Date.parse(session.created_at) + sinceLeaseMs : atMs;
  return describeEnd(id, inferEndReason(session, limits, lastActivity), { limits });
}

/**
 * The kept session `id`, taken out of its window for a re-attach; undefined when none is kept.
 * The caller hands it off once its own lease covers the session, or ends it if it cannot.
 */
export function takeKept(id: string): Pick<Dropped, 'handOff' | 'end' | 'report'> | undefined {
  const entry = kept.get(id);
  if (!entry) return undefined;
  kept.delete(id);
  entry.unsubscribe();
  return entry.dropped;
}

async function endQuietly(dropped: Dropped): Promise<void> {
  await dropped
    .end()
    .catch((error: unknown) =>
      debug(`deleting session ${dropped.id} after a drop failed: ${(error as Error).message}`),
    );
}

/** Whether `id` is kept after a drop, waiting for a re-attach. */
export function isKept(id: string): boolean {
  return kept.has(id);
}
