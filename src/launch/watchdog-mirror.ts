/**
 * The watchdog child's state and its last act, apart from the process wiring
 * (watchdog-child.ts) so they run, and are tested, in-process. It mirrors what its parent holds
 * (sessions, creates on the wire) from IPC messages; when the parent is gone without a clean
 * goodbye it deletes those sessions and reconciles those creates like a lost create: the
 * ledger's orphan search (running sessions created since, unknown to the ledger, with the same
 * targeting). It writes the parent's ledger through ledger.ts, the one writer and line format;
 * it imports nothing else, so the child starts fast and the parent's state cannot break it.
 */
import {
  findOrphans,
  knownIds,
  type RunningSession,
  recordCreateSettled,
  recordEnded,
} from './ledger.js';

/** A create on the wire, as the watchdog hears of it (no secret: targeting only). */
export interface WatchdogIntent {
  intent: string;
  at: string;
  targeting: Record<string, string>;
}

/** One IPC message from the parent; several fields may travel together. */
export interface WatchdogMessage {
  add?: string;
  remove?: string;
  intent?: WatchdogIntent;
  settled?: string;
  bye?: boolean;
}

export interface WatchdogMirrorOptions {
  /** The browser service's origin. */
  origin: string;
  token: string;
  /** The ledger file: ids it names are never reconciled, and what ends is recorded there. */
  ledger: string;
  /**
   * Pause before the second look for a create's orphan: a create the service was still
   * handling when the parent died shows up only once it starts. Default: 2000 ms.
   */
  recheckAfterMs?: number;
  /** Longest wait for each request. Default: 15000 ms. */
  requestTimeoutMs?: number;
}

export interface WatchdogMirror {
  receive(message: WatchdogMessage): void;
  /** Ids of the sessions the parent holds now. */
  readonly sessions: ReadonlySet<string>;
  /** Ids of the parent's creates on the wire now. */
  readonly intents: ReadonlySet<string>;
  /**
   * The parent's channel closed: unless it said goodbye, ends what it left. Settles when done;
   * never rejects (a failed DELETE is left to the reap and the service's idle timeout).
   */
  parentGone(): Promise<void>;
}

export function watchdogMirror(options: WatchdogMirrorOptions): WatchdogMirror {
  const sessions = new Set<string>();
  const intents = new Map<string, WatchdogIntent>();
  const recheckAfterMs = options.recheckAfterMs ?? 2000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  const api = `${options.origin}/api/v2/browser`;
  const headers = { authorization: `Bearer ${options.token}` };
  let clean = false;

  const end = async (id: string): Promise<void> => {
    const res = await fetch(`${api}/sessions/${encodeURIComponent(id)}`, {
      method: 'DELETE',
      headers,
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    if (res.ok) recordEnded(id, 'watchdog', options.ledger);
    else if (res.status === 404) recordEnded(id, 'gone', options.ledger);
  };

  /** Ends the running sessions the creates on the wire may have made; false when the list failed. */
  const endOrphans = async (): Promise<boolean> => {
    const res = await fetch(`${api}/sessions?status=running`, {
      headers,
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    if (!res.ok) return false;
    const running = ((await res.json()) as { data?: RunningSession[] }).data ?? [];
    const known = new Set([...(options.ledger ? knownIds(options.ledger) : []), ...sessions]);
    const orphans = findOrphans(running, [...intents.values()], known);
    await Promise.allSettled(orphans.map((s) => end(s.id)));
    return true;
  };

  const reconcileIntents = async (): Promise<void> => {
    if (!(await endOrphans())) return;
    await new Promise((resolve) => setTimeout(resolve, recheckAfterMs));
    if (!(await endOrphans())) return;
    for (const id of intents.keys()) recordCreateSettled(id, options.ledger);
  };

  return {
    get sessions() {
      return new Set(sessions);
    },
    get intents() {
      return new Set(intents.keys());
    },
    receive(message) {
      if (message.add) sessions.add(message.add);
      if (message.remove) sessions.delete(message.remove);
      if (message.intent) intents.set(message.intent.intent, message.intent);
      if (message.settled) intents.delete(message.settled);
      if (message.bye) clean = true;
    },
    async parentGone() {
      if (clean || (sessions.size === 0 && intents.size === 0)) return;
      await Promise.allSettled([
        ...[...sessions].map((id) => end(id)),
        intents.size > 0 ? reconcileIntents() : Promise.resolve(),
      ]);
    },
  };
}

/** The child's process, as far as the watchdog uses it (a stand-in in tests). */
export interface WatchdogProcess {
  env: Record<string, string | undefined>;
  on(event: 'message', listener: (message: WatchdogMessage) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
  send?: ((message: { ready: true }) => unknown) | undefined;
  exit(code: number): void;
}

/**
 * The watchdog child's whole life: read the parent's origin, token and ledger from the
 * environment (never argv, which `ps` shows) and drop the token from it, mirror the parent's
 * messages, say it is ready; when the channel closes, end what the parent left, then exit.
 */
export function runWatchdog(proc: WatchdogProcess): WatchdogMirror {
  const mirror = watchdogMirror({
    origin: proc.env.REMOTE_BROWSER_WATCHDOG_ORIGIN ?? '',
    token: proc.env.REMOTE_BROWSER_WATCHDOG_TOKEN ?? '',
    ledger: proc.env.REMOTE_BROWSER_WATCHDOG_LEDGER ?? '',
  });
  delete proc.env.REMOTE_BROWSER_WATCHDOG_TOKEN;
  proc.on('message', (message) => mirror.receive(message));
  proc.on('disconnect', () => {
    void mirror.parentGone().finally(() => proc.exit(0));
  });
  proc.send?.({ ready: true });
  return mirror;
}
