/**
 * Opt-in watchdog: a detached child process that deletes this process's sessions, and
 * reconciles its creates in flight, if this process dies without cleaning up (SIGKILL, OOM),
 * when exit hooks cannot run. One per process (it watches the process, not a client): it
 * mirrors what the tracker holds (tracker.ts): the sessions still ours and the creates on the
 * wire, told as the messages watchdog-mirror.ts reads.
 */
import type { ChildProcess } from 'node:child_process';
import { resolveBrowserConfig } from '../http/config.js';
import { nodeChildProcess, nodeFs, nodePath, nodeUrl } from '../http/node-builtins.js';
import { type CreateIntent, ledgerPath } from './ledger.js';
import { tracker } from './tracker.js';
import type { WatchdogIntent, WatchdogMessage } from './watchdog-mirror.js';

export interface WatchdogOptions {
  /** Browser service token. Default: `REMOTE_BROWSER_TOKEN`. */
  token?: string;
  /** Browser service origin. Default: `REMOTE_BROWSER_URL`. */
  baseUrl?: string;
}

export interface Watchdog {
  /** The watchdog's pid. */
  readonly pid: number | undefined;
  /** Stops it without deleting anything (a clean shutdown). */
  stop(): void;
}

let running: Watchdog | undefined;

/**
 * How to start the child: the built package's dist/watchdog.js beside the entry (or one folder
 * up, from a chunk), else, from source (tests), the .ts file through tsx. `here` is this
 * module's folder.
 */
export function watchdogCommand(
  here = nodePath().dirname(nodeUrl().fileURLToPath(import.meta.url)),
): { command: string; args: string[] } {
  const { join } = nodePath();
  for (const file of [join(here, 'watchdog.js'), join(here, '..', 'watchdog.js')]) {
    if (nodeFs().existsSync(file)) return { command: process.execPath, args: [file] };
  }
  return { command: process.execPath, args: ['--import', 'tsx', join(here, 'watchdog-child.ts')] };
}

/** Starts the watchdog once per process (later calls return the same one). */
export async function startWatchdog(options: WatchdogOptions = {}): Promise<Watchdog> {
  if (running) return running;
  const config = resolveBrowserConfig(options);
  const { command, args } = watchdogCommand();
  const child: ChildProcess = nodeChildProcess().spawn(command, args, {
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    env: {
      ...process.env,
      REMOTE_BROWSER_WATCHDOG_ORIGIN: config.baseUrl,
      REMOTE_BROWSER_WATCHDOG_TOKEN: config.token,
      REMOTE_BROWSER_WATCHDOG_LEDGER: ledgerPath(),
    },
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`watchdog exited early (code ${code})`)));
  });
  child.removeAllListeners('exit');
  const send = (message: object) => {
    if (child.connected) child.send(message);
  };
  const unsubscribe = feedWatchdog(send);
  // Neither the child nor its channel may keep this process alive.
  child.unref();
  (child.channel as { unref?: () => void } | undefined)?.unref?.();
  running = {
    pid: child.pid,
    stop() {
      unsubscribe();
      send({ bye: true });
      // Gone already (killed, crashed): disconnect() would emit an 'error' nobody handles.
      if (child.connected) child.disconnect();
      running = undefined;
    },
  };
  return running;
}

/** Only what the watchdog needs to match an orphan: never the origin or the pid. */
const intentOf = ({ intent, at, targeting }: CreateIntent): WatchdogIntent => ({
  intent,
  at,
  targeting,
});

/** Sends what the tracker holds now, then every change, until the returned function is called. */
export function feedWatchdog(send: (message: WatchdogMessage) => void): () => void {
  for (const lease of tracker.leases()) send({ add: lease.id });
  for (const create of tracker.creates()) send({ intent: intentOf(create.intent) });
  return tracker.observe({
    lease: (lease, event) => send(event === 'opened' ? { add: lease.id } : { remove: lease.id }),
    // A create's session and its intent's end travel in one message: a SIGKILL between two
    // messages (while other work delays the lease's `add`) would leave the watchdog knowing
    // neither, and the session running.
    create: (intent, event, createdId) =>
      send(
        event === 'started'
          ? { intent: intentOf(intent) }
          : { settled: intent.intent, ...(createdId !== undefined ? { add: createdId } : {}) },
      ),
    // A session ended without a lease (an abandoned create's, deleted when it answered) leaves
    // the mirror too, so a later SIGKILL does not DELETE it again.
    ended: (id) => send({ remove: id }),
  });
}
