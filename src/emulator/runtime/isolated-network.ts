/** One sandboxed session's way in (its DevTools socket) and way out (its exit), opened before Chromium starts. */
import { join } from 'node:path';
import { type ExitProxy, type ExitTls, openExitProxy } from '../network/exit-proxy.js';
import type { Internet } from '../network/internet.js';
import type { ChromiumLauncher } from './chromium-process.js';
import type { DevtoolsEndpoint } from './devtools-endpoint.js';
import { DEVTOOLS_SOCKET, devtoolsSocketReady, EXIT_SOCKET, sandboxLaunch } from './sandbox.js';
import type { LaunchSpec } from './types.js';

/** What every sandboxed launch shares: the runtime makes it once. */
export interface SandboxConfig {
  bwrap: string;
  internet: Internet;
  exitTls: ExitTls;
  /** base64 SPKI hash of the exit's leaf key. */
  exitSpki: string;
}

export interface IsolatedNetwork {
  launcher: ChromiumLauncher;
  /** The unix socket in the session's temp dir, piped to Chromium's DevTools port in the sandbox. */
  devtools: DevtoolsEndpoint;
  /** Resolves once that socket accepts connections (after Chromium's start). */
  devtoolsReady(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function isolate(
  spec: LaunchSpec,
  sandbox: SandboxConfig,
  tempDir: string,
  userDataDir: string,
): Promise<IsolatedNetwork> {
  const identity = spec.exitIdentity;
  if (!identity)
    throw new Error(`session ${spec.sessionId}: a sandboxed launch needs its exit identity`);
  const exit: ExitProxy = await openExitProxy({
    socketPath: join(tempDir, EXIT_SOCKET),
    internet: sandbox.internet,
    identity,
    tls: sandbox.exitTls,
  });
  return {
    launcher: (executable, chromiumArgs) =>
      sandboxLaunch({
        bwrap: sandbox.bwrap,
        executable,
        chromiumArgs,
        tempDir,
        userDataDir,
        exitSpki: sandbox.exitSpki,
      }),
    devtools: { socketPath: join(tempDir, DEVTOOLS_SOCKET) },
    devtoolsReady: (timeoutMs) => devtoolsSocketReady(tempDir, timeoutMs),
    async close() {
      await exit.close();
    },
  };
}
