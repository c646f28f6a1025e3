/**
 * Opt-in watchdog: a detached child process that deletes this process's sessions, and
 * reconciles its creates in flight, if this process dies without cleaning up (SIGKILL, OOM),
 * when exit hooks cannot run. One per process (it watches the process, not a client): it
 * mirrors the leases and creates of every client's registry (launch-registry.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { resolveBrowserConfig } from '../http/config.js';
import { nodeChildProcess, nodeFs, nodePath, nodeUrl } from '../http/node-builtins.js';
import { onCreateChange } from './creates-in-flight.js';
import { liveRegistries, observeRegistries } from './launch-registry.js';
import { ledgerPath } from './ledger.js';
import { onLeaseChange } from './session-lease.js';

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

function childScript(): { command: string; args: string[] } {
  const { dirname, join } = nodePath();
  const here = dirname(nodeUrl().fileURLToPath(import.meta.url));
  // Built package: dist/watchdog.js beside the entry. From source (tests): the .ts file via tsx.
  for (const file of [join(here, 'watchdog.js'), join(here, '..', 'watchdog.js')]) {
    if (nodeFs().existsSync(file)) return { command: process.execPath, args: [file] };
  }
  return { command: process.execPath, args: ['--import', 'tsx', join(here, 'watchdog-child.ts')] };
}

/** Starts the watchdog once per process (later calls return the same one). */
export async function startWatchdog(options: WatchdogOptions = {}): Promise<Watchdog> {
  if (running) return running;
  const config = resolveBrowserConfig(options);
  const { command, args } = childScript();
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
  const intentOf = ({
    intent,
    at,
    targeting,
  }: {
    intent: string;
    at: string;
    targeting: object;
  }) => ({ intent, at, targeting });
  // What every client of this process holds now, then every change to it.
  for (const registry of liveRegistries()) {
    for (const lease of registry.leases()) send({ add: lease.id });
    for (const create of registry.creates()) send({ intent: intentOf(create.intent) });
  }
  const unsubscribeLeases = onLeaseChange((lease, event) =>
    send(event === 'opened' ? { add: lease.id } : { remove: lease.id }),
  );
  // A create's session and its intent's end travel in one message: a SIGKILL between two
  // messages (while other work delays the lease's `add`) would leave the watchdog knowing
  // neither, and the session running.
  const unsubscribeCreates = onCreateChange((intent, event, createdId) =>
    send(
      event === 'started'
        ? { intent: intentOf(intent) }
        : { settled: intent.intent, ...(createdId !== undefined ? { add: createdId } : {}) },
    ),
  );
  // A session ended without a lease (an abandoned create's, deleted when it answered) leaves
  // the mirror too, so a later SIGKILL does not DELETE it again.
  const unsubscribeEnds = observeRegistries({ ended: (id) => send({ remove: id }) });
  const unsubscribe = () => {
    unsubscribeLeases();
    unsubscribeCreates();
    unsubscribeEnds();
  };
  // Neither the child nor its channel may keep this process alive.
  child.unref();
  (child.channel as { unref?: () => void } | undefined)?.unref?.();
  running = {
    pid: child.pid,
    stop() {
      unsubscribe();
      send({ bye: true });
      child.disconnect?.();
      running = undefined;
    },
  };
  return running;
}
