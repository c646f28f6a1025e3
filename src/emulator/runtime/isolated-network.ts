/** One sandboxed session's way in (DevTools bridge) and way out (its exit), opened before Chromium starts. */
import { join } from 'node:path';
import { type ExitProxy, type ExitTls, openExitProxy } from '../network/exit-proxy.js';
import type { Internet } from '../network/internet.js';
import type { ChromiumLauncher } from './chromium-process.js';
import { EXIT_SOCKET, openDevtoolsBridge, sandboxLaunch } from './sandbox.js';
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
  /** `127.0.0.1:<port>` on the host, piped to Chromium's DevTools port in the sandbox. */
  devtoolsAddress: string;
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
  const bridge = await openDevtoolsBridge(tempDir).catch(async (error: unknown) => {
    await exit.close();
    throw error;
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
    devtoolsAddress: bridge.address,
    async close() {
      bridge.close();
      await exit.close();
    },
  };
}
