/**
 * The adapter's connect within the launch: its deadline and signal, and a connect the network
 * cut tried again on the same session.
 */
import { raceAbort } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import { messageOf } from './errors.js';
import { remaining } from './open-session.js';
import type { OpenedSession } from './opened-session.js';

const debug = createDebug('launch');

/**
 * Runs `connect` within the launch's deadline and signal (Playwright's and Puppeteer's connect
 * take no signal). A connect the network dropped (not one the endpoint refused with a status)
 * while the service says the session runs is tried again on the same session, up to
 * CONNECT_ATTEMPTS in all: a drop is not a close, and a new session would be billed for it.
 */
export async function connectWithin<T>(
  opened: OpenedSession,
  what: string,
  connect: (timeoutMs: number) => Promise<T>,
  dispose: (value: T) => Promise<void>,
): Promise<T> {
  const { scope } = opened;
  for (let attempt = 1; ; attempt++) {
    if (scope.signal.aborted) throw scope.abortError(what);
    const pending = connect(remaining(scope));
    try {
      const connected = await raceAbort(pending, scope, what);
      // The connection lookup ran alongside: the browser is handed out with its live view known.
      await opened.lookedUp;
      return connected;
    } catch (error) {
      disposeLate(pending, dispose);
      if (attempt >= CONNECT_ATTEMPTS || !(await droppedWhileRunning(opened, error))) throw error;
      debug(
        `${what}: the connection to session ${opened.info.id} dropped while connecting; connecting again (${attempt + 1} of ${CONNECT_ATTEMPTS})`,
      );
    }
  }
}

/** A connect given up on that completes later must not leave a client attached: `dispose` it then. */
export function disposeLate<T>(pending: Promise<T>, dispose: (value: T) => Promise<void>): void {
  pending.then(dispose, () => {}).catch(() => {});
}

/** Connects tried on one session when the network drops them (connectWithin). */
const CONNECT_ATTEMPTS = 3;

/**
 * A refused websocket upgrade names its status: Playwright's "WebSocket error: <url> 502 Bad
 * Gateway", Puppeteer's (ws's) "Unexpected server response: 502". Anything else (a reset, "socket
 * hang up", a connection closed after the upgrade) is the network's.
 */
const REFUSED_UPGRADE = /Unexpected server response: \d{3}|WebSocket error: \S+ \d{3} /;

/** Whether a failed connect was dropped by the network while the session still runs. */
async function droppedWhileRunning(opened: OpenedSession, error: unknown): Promise<boolean> {
  if (opened.scope.signal.aborted || REFUSED_UPGRADE.test(messageOf(error))) return false;
  try {
    // The one probe, within what is left of the launch.
    return (await opened.lease.probe(opened.scope.signal))?.status === 'running';
  } catch {
    return false;
  }
}
