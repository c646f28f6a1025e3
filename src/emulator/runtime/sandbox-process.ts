/**
 * A sandbox's process, started before its Chromium. Booting a sandbox (bwrap's namespaces, then
 * the forwarder's Node) is most of what `isolation: 'remote'` adds to a session's start, and none
 * of it depends on the session: the forwarder waits for Chromium's command line on its stdin.
 * So the runtime keeps one sandbox booted ahead, on dirs of its own, for the next session with a
 * throwaway profile (a saved profile's dir is only known at its create, so that session boots
 * its own); a session's start then pays Chromium's start and little else. A spare is never
 * shared: it becomes exactly one session's, and the next one is booted after it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createDebug } from '../../http/debug.js';
import { killGroup, trackGroup, waitForGroupGone } from './process-groups.js';
import type { SandboxLaunch } from './sandbox.js';

const debug = createDebug('emulator:runtime');

export interface BootedSandbox {
  /**
   * Hands Chromium's command line (sandboxedCommand) to the forwarder: the sandbox's process,
   * whose stderr carries Chromium's and whose exit is the sandbox's.
   */
  run(command: readonly string[]): ChildProcess;
  /** False once its process has exited: a spare that died is not used. */
  alive(): boolean;
  /** Ends the whole sandbox and waits until none of it is left (a spare nobody took). */
  kill(): Promise<void>;
}

/** Starts the sandbox's forwarder in its own process group, waiting for its command. */
export function bootSandbox(launch: SandboxLaunch): BootedSandbox {
  const child = spawn(launch.command, launch.args, {
    env: launch.env,
    detached: true,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  if (child.pid !== undefined) trackGroup(child.pid);
  // A spawn that failed (its 'error' is read by whoever runs it) or a sandbox that died before
  // its command came: neither may throw here (an unhandled 'error', an EPIPE on the write).
  child.once('error', () => {});
  child.stdin!.on('error', () => {});
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    run(command) {
      child.stdin!.end(JSON.stringify(command));
      return child;
    },
    alive: () => !exited() && child.pid !== undefined,
    async kill() {
      if (child.pid === undefined) return;
      killGroup(child.pid);
      if (!exited()) await once(child, 'exit');
      await waitForGroupGone(child.pid);
    },
  };
}

/** A booted sandbox and the dirs it was booted on. */
export interface Spare<Dirs> {
  dirs: Dirs;
  sandbox: BootedSandbox;
}

export interface SpareParts<Dirs> {
  /** A session's throwaway dirs, made ahead. */
  makeDirs(): Promise<Dirs>;
  boot(dirs: Dirs): BootedSandbox;
  /** Removes dirs that no session took. */
  removeDirs(dirs: Dirs): Promise<void>;
}

/**
 * How long the runtime waits after a session's start before it boots the next spare: a
 * sandbox's boot (a Node process) beside the client's first connect would slow that connect on
 * two cores by more than the spare saves the next start.
 */
export const SPARE_BOOT_DELAY_MS = 1_000;

/** The runtime's one spare sandbox: at most one booted ahead, handed to exactly one session. */
export class SpareSandbox<Dirs> {
  readonly #parts: SpareParts<Dirs>;
  readonly #delayMs: number;
  #ready: Spare<Dirs> | undefined;
  #booting: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(parts: SpareParts<Dirs>, delayMs = SPARE_BOOT_DELAY_MS) {
    this.#parts = parts;
    this.#delayMs = delayMs;
  }

  /** The spare, if one is booted and alive; it is the caller's from here on. */
  take(): Spare<Dirs> | undefined {
    const ready = this.#ready;
    this.#ready = undefined;
    if (ready && !ready.sandbox.alive()) {
      debug('the spare sandbox had died: discarded');
      void this.#discard(ready);
      return undefined;
    }
    return ready;
  }

  /**
   * Boots the next spare once no session has started for the delay, unless one is ready or
   * booting, or the runtime is shutting down. Each call restarts the wait.
   */
  refill(): void {
    clearTimeout(this.#timer);
    if (this.#closed || this.#ready || this.#booting) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#closed || this.#ready || this.#booting) return;
      this.#booting = this.#boot().finally(() => {
        this.#booting = undefined;
      });
    }, this.#delayMs);
    // A spare is never a reason to keep the process alive.
    this.#timer.unref();
  }

  /** Ends the spare (booting or ready) and removes its dirs; no spare is booted after. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#booting;
    const ready = this.#ready;
    this.#ready = undefined;
    if (ready) await this.#discard(ready);
  }

  async #boot(): Promise<void> {
    let dirs: Dirs | undefined;
    try {
      dirs = await this.#parts.makeDirs();
      const spare = { dirs, sandbox: this.#parts.boot(dirs) };
      if (this.#closed) await this.#discard(spare);
      else this.#ready = spare;
    } catch (error) {
      // A spare only saves time: without one, the next session boots its own sandbox.
      debug(`no spare sandbox: ${(error as Error).message}`);
      if (dirs !== undefined) await this.#parts.removeDirs(dirs).catch(() => {});
    }
  }

  async #discard(spare: Spare<Dirs>): Promise<void> {
    await spare.sandbox.kill();
    await this.#parts.removeDirs(spare.dirs).catch(() => {});
  }
}
