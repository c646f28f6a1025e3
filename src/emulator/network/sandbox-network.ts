/**
 * The network of a sandboxed session (`isolation: 'remote'`): its exit proxy on a unix socket in
 * the session's temp dir, the bwrap launch that runs its forwarder and Chromium, and its DevTools
 * socket, moved out of the sandbox's reach before use (runtime/isolated-network.ts says why).
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { claimSocket, hostSocketDir, type SessionSandbox } from '../runtime/isolated-network.js';
import { removeOnExit } from '../runtime/process-groups.js';
import {
  DEVTOOLS_SOCKET,
  EXIT_SOCKET,
  forwarderScript,
  sandboxedCommand,
  sandboxLaunch,
} from '../runtime/sandbox.js';
import { bootSandbox } from '../runtime/sandbox-process.js';
import { type ExitProxy, type ExitTls, openExitProxy } from './exit-proxy.js';
import type { Internet } from './internet.js';

/** What every sandboxed launch of one emulator shares. */
export interface SandboxConfig {
  bwrap: string;
  internet: Internet;
  exitTls: ExitTls;
  /** base64 SPKI hash of the exit's leaf key. */
  exitSpki: string;
  /** The built forwarder; default: forwarderScript(), looked up at the first launch. */
  forwarder?: string;
}

/** The config, and what launches with it. */
export type SandboxNetwork = SandboxConfig & SessionSandbox;

export function sandboxNetwork(sandbox: SandboxConfig): SandboxNetwork {
  let forwarder = sandbox.forwarder;
  const boot = (executable: string, tempDir: string, userDataDir: string) => {
    forwarder ??= forwarderScript();
    return bootSandbox(
      sandboxLaunch({ bwrap: sandbox.bwrap, executable, tempDir, userDataDir, forwarder }),
    );
  };
  return {
    ...sandbox,
    boot,
    async isolate(spec, tempDir, userDataDir, booted) {
      const identity = spec.exitIdentity;
      if (!identity)
        throw new Error(`session ${spec.sessionId}: a sandboxed launch needs its exit identity`);
      const hostDir = hostSocketDir(tempDir);
      await mkdir(hostDir, { mode: 0o700 });
      // Beside a temp dir outside the work dir (a long TMPDIR), it needs its own removal at exit.
      const forgetHostDir = removeOnExit(hostDir);
      let exit: ExitProxy;
      try {
        exit = await openExitProxy({
          socketPath: join(tempDir, EXIT_SOCKET),
          internet: sandbox.internet,
          identity,
          tls: sandbox.exitTls,
        });
      } catch (error) {
        await rm(hostDir, { recursive: true, force: true });
        forgetHostDir();
        throw error;
      }
      const socketPath = join(hostDir, DEVTOOLS_SOCKET);
      return {
        launcher: (chromium, chromiumArgs) =>
          (booted ?? boot(chromium, tempDir, userDataDir)).run(
            sandboxedCommand(chromium, chromiumArgs, sandbox.exitSpki),
          ),
        devtools: { socketPath },
        devtoolsReady: (timeoutMs) =>
          claimSocket(join(tempDir, DEVTOOLS_SOCKET), socketPath, timeoutMs),
        async close() {
          await exit.close();
          await rm(hostDir, { recursive: true, force: true });
          forgetHostDir();
        },
      };
    },
  };
}
