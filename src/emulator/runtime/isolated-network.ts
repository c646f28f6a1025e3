/**
 * What the runtime needs of a sandboxed session's network: a way in (its DevTools socket) and a
 * way out (its exit), opened before Chromium starts. The network folder makes them
 * (network/sandbox-network.ts); the runtime only sees these types, so the two folders import
 * in one direction (network → runtime).
 *
 * The forwarder makes the DevTools socket in the session's temp dir, which the sandbox can write:
 * a path there could be swapped for a symlink to any socket of the host by the time the host
 * connects. So the host never connects there: once Chromium is up it renames the socket into a
 * dir of its own beside the temp dir (0700, never visible in the sandbox; a rename moves the
 * link, never follows it), checks there that what it moved is a socket, and connects only to
 * that path. Whatever the sandbox did before the move, the host reaches the sandbox or nothing.
 */
import { lstat, rename, rm } from 'node:fs/promises';
import type { ChromiumLauncher } from './chromium-process.js';
import type { DevtoolsEndpoint } from './devtools-endpoint.js';
import type { BootedSandbox } from './sandbox-process.js';
import type { LaunchSpec } from './types.js';

/** Every sandboxed launch goes through it: the emulator makes one (network/setup.ts). */
export interface SessionSandbox {
  /**
   * Starts a sandbox for Chromium at `executable` on these dirs (its /tmp and /profile) before
   * its session is known: the runtime's spare (runtime/sandbox-process.ts).
   */
  boot(executable: string, tempDir: string, userDataDir: string): BootedSandbox;
  /**
   * The session's exit and sockets, in and beside `tempDir` (its sandbox's /tmp); its launcher
   * runs Chromium in `booted`, a spare booted on these dirs, or else in a sandbox of its own.
   */
  isolate(
    spec: LaunchSpec,
    tempDir: string,
    userDataDir: string,
    booted?: BootedSandbox,
  ): Promise<IsolatedNetwork>;
}

export interface IsolatedNetwork {
  launcher: ChromiumLauncher;
  /** The DevTools socket in the host's own dir, piped to Chromium's DevTools port in the sandbox. */
  devtools: DevtoolsEndpoint;
  /** Moves the forwarder's socket to `devtools` and checks it (after Chromium's start). */
  devtoolsReady(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** The host's own dir for a session's DevTools socket: beside its temp dir, out of the sandbox. */
export function hostSocketDir(tempDir: string): string {
  return `${tempDir}.host`;
}

/**
 * Renames the sandbox's socket at `from` to the host's `to` once the forwarder made it (it may
 * still be starting beside Chromium: waits up to `timeoutMs`), then fails closed unless what it
 * moved is a socket.
 */
export async function claimSocket(from: string, to: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await rename(from, to);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || Date.now() >= deadline) {
        throw new Error(`the sandbox's DevTools socket is missing (${code})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  const moved = await lstat(to);
  if (!moved.isSocket()) {
    await rm(to, { force: true });
    throw new Error('the sandbox replaced its DevTools socket with something else: refused');
  }
}
