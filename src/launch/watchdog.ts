/**
 * Opt-in watchdog: a detached child process that deletes this process's sessions, and
 * reconciles its creates in flight, if this process dies without cleaning up (SIGKILL, OOM),
 * when exit hooks cannot run. One per process (it watches the process, not a client): it
 * mirrors the leases and creates of every client's registry (launch-registry.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { resolveBrowserConfig } from '../http/config.js';
import { nodeChildProcess, nodeFs, nodePath, nodeUrl } from '../http/node-builtins.js';
import { ledgerPath } from './ledger.js';
import { feedWatchdog } from './watchdog-feed.js';

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
