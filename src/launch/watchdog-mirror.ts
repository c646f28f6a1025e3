/**
 * The watchdog child's state and its last act, apart from the process wiring
 * (watchdog-child.ts) so they run, and are tested, in-process. It mirrors what its parent holds
 * (sessions, creates on the wire) from IPC messages; when the parent is gone without a clean
 * goodbye it deletes those sessions and reconciles those creates like a lost create: the
 * ledger's orphan search (running sessions created since, unknown to the ledger, with the same
 * targeting). It writes the parent's ledger through ledger.ts, the one writer and line format,
 * and talks to the service through `BrowserApi` like every other path (the same paths, id
 * checks, retries and error classes); the client is loaded only when the parent is gone, so the
 * child starts fast, and it shares none of the parent's state.
 */
import type { BrowserApi } from '../browser-api/index.js';
import { isNotFoundError } from '../http/errors.js';
import {
  contestedIntents,
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
  let clean = false;
  const call = () => ({ timeout: requestTimeoutMs });

  const end = async (api: BrowserApi, id: string): Promise<void> => {
    try {
      await api.sessions.end(id, call());
      recordEnded(id, 'watchdog', options.ledger);
    } catch (error) {
      // Anything else (a failure, no answer) is left to the reap and the service's idle timeout.
      if (isNotFoundError(error)) recordEnded(id, 'gone', options.ledger);
    }
  };

  /**
   * Ends the running sessions the creates on the wire may have made. 'failed': the list failed;
   * 'contested': a session was left because a live process's create may have made it too.
   */
  const endOrphans = async (api: BrowserApi): Promise<'done' | 'contested' | 'failed'> => {
    let running: RunningSession[];
    try {
      running = (await api.sessions.list({ status: 'running' }, call())).map((s) => ({
        id: s.id,
        created_at: s.created_at,
        config: s.config as Record<string, unknown> | undefined,
      }));
    } catch {
      return 'failed';
    }
    const known = new Set([...(options.ledger ? knownIds(options.ledger) : []), ...sessions]);
    const contested = options.ledger
      ? contestedIntents(new Set(intents.keys()), options.origin, options.ledger)
      : [];
    const creates = [...intents.values()];
    const orphans = findOrphans(running, creates, known, contested);
    await Promise.allSettled(orphans.map((s) => end(api, s.id)));
    return findOrphans(running, creates, known).length > orphans.length ? 'contested' : 'done';
  };

  const reconcileIntents = async (api: BrowserApi): Promise<void> => {
    if ((await endOrphans(api)) === 'failed') return;
    await new Promise((resolve) => setTimeout(resolve, recheckAfterMs));
    // Still failed or contested: the creates stay open in the ledger for the reap.
    if ((await endOrphans(api)) !== 'done') return;
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
      let api: BrowserApi;
      try {
        const { BrowserApi } = await import('../browser-api/client.js');
        api = new BrowserApi({ baseUrl: options.origin, token: options.token });
      } catch {
        // No origin or token to act with: nothing can be ended (the reap still can).
        return;
      }
      try {
        await Promise.allSettled([
          ...[...sessions].map((id) => end(api, id)),
          intents.size > 0 ? reconcileIntents(api) : Promise.resolve(),
        ]);
      } finally {
        await api.close().catch(() => {});
      }
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
