/** `startEmulator()`: the runtime, the state, the routes and the server, wired once. */
import { timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redact } from '../http/index.js';
import { adminModule } from './admin.js';
import { type AdminClient, createAdminClient } from './admin-client.js';
import { SessionLifecycle } from './browser-service/session-lifecycle.js';
import { SYNTHETIC_RECORDINGS_DIR } from './browser-service/synthetic-recording.js';
import { EmulatorClock } from './clock.js';
import type { EmulatorContext, LiveView } from './context.js';
import { FaultRegistry } from './faults.js';
import { type LatencyFront, openLatencyFront } from './network-model.js';
import { type EmulatorOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { type RouteModule, Router } from './router.js';
import {
  type BrowserRuntime,
  type CdpProxy,
  type CdpTargetResolver,
  createBrowserRuntime,
  createCdpProxy,
  createLiveView,
  type RunningBrowser,
  removeOnExit,
} from './runtime/index.js';
import { createEmulatorServer } from './server.js';
import { SERVICE_MODULES } from './services.js';
import { Store } from './store.js';
import { UrlSigner } from './url-signer.js';

export interface EmulatorHandle {
  /** Origin of the emulator (`http://127.0.0.1:<port>`); same as `browserUrl` and `accountUrl`. */
  url: string;
  /** Browser service origin: clients append `/api/v2/browser` (`REMOTE_BROWSER_URL`). */
  browserUrl: string;
  /** Account service origin: clients append `/api/v2/base` (`REMOTE_BROWSER_ACCOUNT_URL`). */
  accountUrl: string;
  /** Browser token of the default account. */
  token: string;
  /** Proxy password of the default account. */
  proxyPassword: string;
  /** Account API key of the default account. */
  apiKey: string;
  /** Typed client of the admin API (`/_emulator/...`). */
  admin: AdminClient;
  /** Ends every session and stops the server; no Chromium process is left when it resolves. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** What `startEmulator` builds around a runtime; tests may pass their own. */
export interface EmulatorParts {
  runtime: BrowserRuntime;
  createProxy(options: { publicOrigin: () => string; resolve: CdpTargetResolver }): CdpProxy;
  createLiveView(options: { resolve: (sessionId: string) => RunningBrowser | undefined }): LiveView;
  /** More services on the same origin (the account service under `/api/v2/base`). */
  routeModules?: ReadonlyArray<(ctx: EmulatorContext) => RouteModule>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const resolved = resolveOptions(options);
  const runtime = await createBrowserRuntime(resolved.runtime);
  try {
    return await startWithParts(resolved, {
      runtime,
      createProxy: createCdpProxy,
      createLiveView,
    });
  } catch (error) {
    // A port in use, say: the runtime's work dir must not outlive the failed start.
    await runtime.shutdown();
    throw error;
  }
}

const sameSecret = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export async function startWithParts(
  options: ResolvedOptions,
  parts: EmulatorParts,
): Promise<EmulatorHandle> {
  const clock = new EmulatorClock();
  const store = new Store(clock, options);
  const dataDir = await mkdtemp(join(tmpdir(), 'remote-browser-emulator-data-'));
  // A crash or an unhandled Ctrl-C before close() must not leave the data dir behind.
  const forgetDataDir = removeOnExit(dataDir);
  let origin = '';
  const log: EmulatorContext['log'] = (level, message) => options.logger(level, redact(message));

  const resolve: CdpTargetResolver = (sessionId, accessToken) => {
    const session = store.sessions.get(sessionId);
    const browser = session?.browser;
    if (!session || !browser || session.status !== 'running') return undefined;
    if (!accessToken || !sameSecret(accessToken, session.accessToken)) return undefined;
    return { browser, onActivity: () => ctx.sessions.touch(session) };
  };
  const resetListeners: Array<() => void | Promise<void>> = [];
  const closeListeners: Array<() => void | Promise<void>> = [];
  const ctx = {
    options,
    clock,
    store,
    faults: new FaultRegistry(),
    log,
    runtime: parts.runtime,
    proxy: parts.createProxy({ publicOrigin: () => origin, resolve }),
    // The live view URL carries no token (an <img> or iframe cannot send one): by id alone.
    liveView: parts.createLiveView({
      resolve: (sessionId) => {
        const session = store.sessions.get(sessionId);
        return session?.status === 'running' ? session.browser : undefined;
      },
    }),
    signer: new UrlSigner(),
    dataDir,
    defaultAccountId: '',
    origin: () => origin,
    onReset: (listener: () => void | Promise<void>) => void resetListeners.push(listener),
    onClose: (listener: () => void | Promise<void>) => void closeListeners.push(listener),
  } as Omit<EmulatorContext, 'sessions'> as EmulatorContext;
  ctx.sessions = new SessionLifecycle(ctx);

  if (!parts.runtime.recordingsAvailable) {
    log('warn', `recordings are off: ${parts.runtime.recordingsOffReason ?? 'ffmpeg not found'}`);
  }

  const defaults = store.createAccount({ purchased: true });
  ctx.defaultAccountId = defaults.account.id;

  const reset = async () => {
    await ctx.sessions.endAll('emulator_reset');
    ctx.faults.clear();
    clock.resetOffset();
    store.clear(new Set([ctx.defaultAccountId]));
    await rm(join(dataDir, 'profiles'), { recursive: true, force: true });
    await rm(join(dataDir, SYNTHETIC_RECORDINGS_DIR), { recursive: true, force: true });
    for (const listener of resetListeners) await listener();
  };

  const router = new Router();
  for (const module of [...SERVICE_MODULES, ...(parts.routeModules ?? [])]) {
    router.mount(module(ctx));
  }
  router.mount(adminModule(ctx, reset));

  const server = createEmulatorServer(ctx, router);
  const { rttMs } = options.network;
  let front: LatencyFront | undefined;
  let serverPort: number;
  try {
    // With a network modelled, the server listens on a private port behind the latency front.
    await listen(server, options.host, rttMs > 0 ? 0 : options.port);
    serverPort = (server.address() as AddressInfo).port;
    front =
      rttMs > 0
        ? await openLatencyFront({
            target: `${options.host}:${serverPort}`,
            rttMs,
            host: options.host,
            port: options.port,
          })
        : undefined;
  } catch (error) {
    server.close();
    clock.cancelAll();
    await rm(dataDir, { recursive: true, force: true });
    forgetDataDir();
    throw error;
  }
  const port = front?.port ?? serverPort;
  origin = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  log('info', `emulator listening on ${origin}${rttMs > 0 ? ` (modelled RTT ${rttMs} ms)` : ''}`);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await ctx.sessions.endAll('emulator_closed');
      for (const listener of closeListeners) await listener();
      await parts.runtime.shutdown();
      clock.cancelAll();
      await front?.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await rm(dataDir, { recursive: true, force: true });
      forgetDataDir();
    })();
    return closing;
  };

  return {
    url: origin,
    browserUrl: origin,
    accountUrl: origin,
    token: defaults.token,
    proxyPassword: defaults.account.proxyPassword,
    apiKey: defaults.account.apiKey,
    admin: createAdminClient(origin),
    close,
    [Symbol.asyncDispose]: close,
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done();
    });
  });
}
