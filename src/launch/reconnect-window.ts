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
 * The kept sessions are the registry's (`tracker.kept`), by id: `connectRemote(id)` may use another client than
 * the launch did. The window's timer is unref'd: a process with nothing else to do exits, and
 * its exit hooks (or the watchdog) end the kept session like any other.
 *
 * A drop-in's session (`reuseKey` set) may also be taken by the next drop-in launch with the
 * same key (`takeKeptFor`): a framework (Crawlee) that closes the dead browser and launches
 * another gets the same session back instead of a new, billed one. The key (`reuseKeyOf`) is
 * the account and every option that shapes the session, so only an interchangeable launch takes
 * it; the take is synchronous once the pending drops of that key are decided, so one kept
 * session goes to one launch.
 */

import type { Session } from '../browser-api/index.js';
import { resolveBrowserConfig } from '../http/config.js';
import { createDebug } from '../http/debug.js';
import { nodeCrypto } from '../http/node-builtins.js';
import { describeEnd, inferEndReason, type SessionEnd, type SessionLimits } from './end-reason.js';
import { onIdle } from './exit-hooks.js';
import { recorder } from './metering.js';
import type { LaunchRemoteOptions } from './options.js';
import type { EndEvent, RemoteSession } from './remote-session.js';
import type { Slot } from './slots.js';
import { toWireSession } from './to-wire.js';
import { type KeptSession, type TakenKept, tracker } from './tracker.js';

const debug = createDebug('launch');

/** Default of the `reconnectWindowMs` option. */
export const DEFAULT_RECONNECT_WINDOW_MS = 60_000;

/**
 * How many times a pool or a drop-in launch tries one re-attach whose own connect the network
 * may cut again (a flaky one): each cut try leaves the session kept for the next.
 */
export const REATTACH_ATTEMPTS = 3;

/**
 * One re-attach, tried up to REATTACH_ATTEMPTS times: the pools' and the drop-ins' one loop. A
 * try the network cut before it connected leaves its session kept (the connect's abandon()),
 * and the next try takes it again. Undefined when a try finds nothing kept, or every try failed.
 */
export async function reattachTries<B>(
  attempt: () => Promise<B | undefined>,
): Promise<B | undefined> {
  for (let tries = 1; tries <= REATTACH_ATTEMPTS; tries++) {
    try {
      return await attempt();
    } catch (error) {
      debug(`re-attaching a kept session failed: ${(error as Error).message}`);
    }
  }
  return undefined;
}

/** What one dropped session needs from its launch. */
export interface Dropped {
  /** The session whose connection dropped (state `dropped`). */
  session: RemoteSession;
  windowMs: number;
  limits: SessionLimits;
  /**
   * The last CDP activity this process saw: ms after the lease was made (`sinceLeaseMs`), and
   * whether this process launched the session (then the lease began at its `created_at`).
   */
  activity: { sinceLeaseMs: number; launched: boolean; atMs: number };
  /** Ends the session (`event`: why): the DELETE (a no-op for an ended one), recordings, the client. */
  end(event?: EndEvent): Promise<void>;
  /**
   * Gives the session up to the re-attaching launch: the session moves to `reattached` without a
   * DELETE or a ledger line, and its account slot is returned for the new session to hold.
   */
  handOff(): Slot | undefined;
  /**
   * Set for a drop-in's session (`reuseKeyOf` of its options): the next drop-in launch with the
   * same key may take it (`takeKeptFor`). Absent: only `connectRemote(id)` re-attaches it.
   */
  reuseKey?: string | undefined;
}

export type { TakenKept } from './tracker.js';

/** Decides what a drop means for the session, as the module comment says. Never throws. */
export function handleDrop(dropped: Dropped): Promise<void> {
  const decision = decide(dropped);
  const key = dropped.reuseKey;
  if (key === undefined) return decision;
  const { deciding } = tracker;
  let pending = deciding.get(key);
  if (!pending) {
    pending = new Set();
    deciding.set(key, pending);
  }
  pending.add(decision);
  void decision.finally(() => {
    pending.delete(decision);
    if (pending.size === 0 && deciding.get(key) === pending) deciding.delete(key);
  });
  return decision;
}

async function decide(dropped: Dropped): Promise<void> {
  const { session, windowMs } = dropped;
  const { id } = session;
  if (windowMs <= 0) return endQuietly(dropped);
  let found: Session | undefined;
  try {
    found = await session.probe();
  } catch (error) {
    // close() or a keep came first: then the drop was expected.
    if (session.state !== 'dropped') return;
    debug(`session ${id}: asking the service after a drop failed: ${(error as Error).message}`);
    return endQuietly(dropped, 'service-ended');
  }
  if (session.state !== 'dropped') return;
  if (found?.status !== 'running') {
    session.report(
      found ? serviceEnd(id, found, dropped.limits, dropped.activity) : describeEnd(id, 'gone'),
    );
    return endQuietly(dropped, 'service-ended');
  }
  session.report(describeEnd(id, 'connection_lost', { windowMs }));
  const entry: KeptSession = {
    reuseKey: dropped.reuseKey,
    take: () => {
      leave();
      return {
        id,
        handOff: () => dropped.handOff(),
        end: () => dropped.end(),
        report: (end) => session.report(end),
      };
    },
  };
  const leave = () => {
    tracker.kept.delete(id);
    tracker.closedKept.delete(id);
    unsubscribe();
  };
  const unsubscribe = session.observe(({ from, event }) => {
    if (from !== 'kept' || event === 'reattach' || tracker.kept.get(id) !== entry) return;
    // Out of the window: it passed, or a close or an exit path came first.
    leave();
    if (event === 'window-passed') session.report(describeEnd(id, 'window_passed', { windowMs }));
    void endQuietly(dropped, event === 'window-passed' ? 'window-passed' : 'close');
  });
  // Two browsers on one session that both dropped: the later one's window counts.
  takeKept(id);
  tracker.kept.set(id, entry);
  session.keepFor(windowMs);
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
  // The service's own record of the session's minutes, read here anyway.
  recorder.serviceRecord(id, session);
  const lastActivity = launched ? Date.parse(session.created_at) + sinceLeaseMs : atMs;
  return describeEnd(id, inferEndReason(session, limits, lastActivity), { limits });
}

/**
 * The kept session `id`, taken out of its window for a re-attach; undefined when none is kept.
 * The caller hands it off once its own lease covers the session, or ends it if it cannot.
 */
export function takeKept(id: string): TakenKept | undefined {
  return tracker.kept.get(id)?.take();
}

/**
 * A drop-in's close() after a drop left the kept session `id` for the next drop-in launch. Only
 * a launch of this process can take it now, so once the event loop runs dry (`beforeExit`: no
 * launch can come) it is ended there, not left to the window (whose timer does not hold the
 * process) and the service's idle timeout.
 */
export function keptAfterClose(id: string): void {
  if (!tracker.kept.has(id)) return;
  tracker.closedKept.add(id);
  onIdle(endClosedKept);
}

/** On `beforeExit`: no launch of this process can take the closed kept sessions any more. */
function endClosedKept(): void {
  for (const closed of [...tracker.closedKept]) {
    const taken = takeKept(closed);
    if (!taken) continue;
    debug(`session ${closed}: closed after a drop and nothing left to re-attach it: ending it`);
    void taken
      .end()
      .catch((error: unknown) =>
        debug(`deleting session ${closed} failed: ${(error as Error).message}`),
      );
  }
}

async function endQuietly(dropped: Dropped, event?: EndEvent): Promise<void> {
  await dropped
    .end(event)
    .catch((error: unknown) =>
      debug(
        `deleting session ${dropped.session.id} after a drop failed: ${(error as Error).message}`,
      ),
    );
}

/** Whether `id` is kept after a drop, waiting for a re-attach. */
export function isKept(id: string): boolean {
  return tracker.kept.has(id);
}

/**
 * A kept drop-in session whose `reuseKey` is `key`, taken out of its window for the launch that
 * asks (the oldest first); undefined when none is kept. Waits for the drops of that key still
 * being decided (one `GET /sessions/{id}` each), so a launch right after a drop finds its
 * session; then takes synchronously, so two launches never get one session.
 */
export async function takeKeptFor(key: string): Promise<TakenKept | undefined> {
  const pending = tracker.deciding.get(key);
  if (pending) await Promise.allSettled([...pending]);
  for (const entry of tracker.kept.values()) {
    if (entry.reuseKey === key) return entry.take();
  }
  return undefined;
}

/**
 * The key under which two drop-in launches are interchangeable: the same account (the `api`
 * client itself, or the resolved origin, token and proxy password) and the same options that
 * shape the session (targeting, proxy, stealth and blockers, limits, headless, profile,
 * recording, keepSession). Options of the connection (timeouts, viewport, exposeNetwork...)
 * apply to the new connection anyway and are not part of it. Order-insensitive; a SHA-256, so
 * it holds no secret. Undefined when the account cannot be resolved (the launch then fails
 * with its own error).
 */
export function reuseKeyOf(options: LaunchRemoteOptions): string | undefined {
  let account: string;
  if (options.api) {
    account = `client ${tracker.clientNumber(options.api)}`;
  } else {
    try {
      const { baseUrl, token, proxyPassword } = resolveBrowserConfig({
        token: options.token,
        baseUrl: options.baseUrl,
        proxyPassword: options.proxyPassword,
      });
      account = JSON.stringify([baseUrl, token, proxyPassword ?? null]);
    } catch {
      return undefined;
    }
  }
  const shape = {
    account,
    session: toWireSession(options),
    profile: options.profile ?? null,
    recording: options.recording ?? null,
    keepSession: options.keepSession === true,
  };
  return nodeCrypto().createHash('sha256').update(stableJson(shape)).digest('hex');
}

/** JSON with object keys sorted, so the same options in another order give the same text. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
