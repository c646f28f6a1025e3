/** `startEmulator()`: the runtime, the state, both services and the server, wired once. */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redact } from '../http/index.js';
import { createAccountService } from './account-service/service.js';
import { adminModule } from './admin.js';
import { type AdminClient, createAdminClient } from './admin-client.js';
import {
  type BrowserService,
  type BrowserServiceDeps,
  createBrowserService,
} from './browser-service/service.js';
import { Store } from './browser-service/store.js';
import { EmulatorClock } from './clock.js';
import { type EmulatorNetwork, prepareNetwork } from './network/setup.js';
import {
  type EmulatorOptions,
  exposureWarning,
  type ResolvedOptions,
  resolveOptions,
} from './options.js';
import {
  type BrowserRuntime,
  createBrowserRuntime,
  createCdpProxy,
  createLiveView,
  removeOnExit,
} from './runtime/index.js';
import { FaultRegistry } from './server/faults.js';
import { type Listening, listenBehindNetwork } from './server/network-model.js';
import { Router } from './server/router.js';
import { createEmulatorServer, type ServerDeps } from './server/server.js';

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
  /** The isolation sessions get: `'none'` when `'remote'` was asked for but fell back (a warning said so). */
  isolation: 'remote' | 'none';
  /**
   * PEM of the CA made for this emulator (with `tls: true`): what a client trusts, e.g. through
   * `NODE_EXTRA_CA_CERTS`. Undefined without TLS or with a certificate of your own.
   */
  ca: string | undefined;
  /** Ends every session and stops the server; no Chromium process is left when it resolves. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** What `startEmulator` builds around a runtime; tests may pass their own. */
export interface EmulatorParts {
  runtime: BrowserRuntime;
  createProxy: BrowserServiceDeps['createProxy'];
  createLiveView: BrowserServiceDeps['createLiveView'];
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const resolved = resolveOptions(options);
  const network = await prepareNetwork(resolved, (message) => resolved.logger('warn', message));
  const runtime = await createBrowserRuntime(resolved.runtime, network.sandbox);
  try {
    return await startWithParts(
      resolved,
      { runtime, createProxy: createCdpProxy, createLiveView },
      network,
    );
  } catch (error) {
    // A port in use, say: the runtime's work dir must not outlive the failed start.
    await runtime.shutdown();
    throw error;
  }
}

export async function startWithParts(
  options: ResolvedOptions,
  parts: EmulatorParts,
  /** Default: no sandbox, no TLS, the internet of `options`. */
  given?: EmulatorNetwork,
): Promise<EmulatorHandle> {
  const network =
    given ?? (await prepareNetwork({ ...options, isolation: 'none', tls: false }, () => {}));
  const state = await createState(options);
  let origin = '';
  const log: ServerDeps['log'] = (level, message) => options.logger(level, redact(message));
  const services = createServices(options, parts, state, { origin: () => origin, log });
  const defaults = state.store.createAccount({ purchased: true });
  const admin = adminFor(parts, state, services, defaults.account.id, network);
  const server = createEmulatorServer(
    {
      faults: state.faults,
      log,
      origin: () => origin,
      boundHost: options.host,
      handleHttp: services.browser.handleHttp,
      handleUpgrade: services.browser.handleUpgrade,
    },
    mountServices(services, admin),
  );
  const listening = await listenOrUndo(server, options, state, network);
  origin = listening.origin;
  const exposed = exposureWarning(options, origin);
  if (exposed) {
    log('warn', exposed);
    process.stderr.write(`${exposed}\n`);
  }
  log(
    'info',
    `emulator listening on ${origin}${options.network.rttMs > 0 ? ` (modelled RTT ${options.network.rttMs} ms)` : ''}`,
  );
  const close = closeOnce(parts, state, services, server, listening);
  return {
    url: origin,
    browserUrl: origin,
    accountUrl: origin,
    token: defaults.token,
    proxyPassword: defaults.account.proxyPassword,
    apiKey: defaults.account.apiKey,
    admin: createAdminClient(origin, network.ca),
    isolation: network.isolation,
    ca: network.ca,
    close,
    [Symbol.asyncDispose]: close,
  };
}

interface Services {
  browser: BrowserService;
  account: ReturnType<typeof createAccountService>;
}

/** Both services over the one state; says so when recordings are off (no ffmpeg). */
function createServices(
  options: ResolvedOptions,
  parts: EmulatorParts,
  { clock, store, dataDir }: State,
  { origin, log }: Pick<BrowserServiceDeps, 'origin' | 'log'>,
): Services {
  const browser = createBrowserService({ ...parts, options, clock, store, dataDir, origin, log });
  const account = createAccountService({
    clock,
    // The accounts of `POST /_emulator/accounts`, which carry `apiKey`, `purchased` and `balance`.
    accounts: {
      byApiKey: (apiKey) => [...store.accounts.values()].find((a) => a.apiKey === apiKey),
      byId: (id) => store.accounts.get(id),
      list: () => store.accounts.values(),
    },
    options: options.account,
  });
  if (!parts.runtime.recordingsAvailable) {
    log('warn', `recordings are off: ${parts.runtime.recordingsOffReason ?? 'ffmpeg not found'}`);
  }
  return { browser, account };
}

/** The admin API, with a reset that keeps only the default account. */
function adminFor(
  parts: EmulatorParts,
  { store, clock, faults }: State,
  { browser, account }: Services,
  defaultAccountId: string,
  { internet }: EmulatorNetwork,
): ReturnType<typeof adminModule> {
  const reset = async () => {
    await browser.endAll('emulator_reset');
    faults.clear();
    clock.resetOffset();
    store.clear(new Set([defaultAccountId]));
    await browser.clearFiles();
    account.reset();
  };
  return adminModule(
    {
      store,
      clock,
      faults,
      runtime: parts.runtime,
      defaultAccountId,
      internet,
      browser,
    },
    reset,
  );
}

/** Listens; a failure (a port in use) leaves no timer and no data dir behind. */
async function listenOrUndo(
  server: Server,
  options: ResolvedOptions,
  state: State,
  network: EmulatorNetwork,
): Promise<Listening> {
  try {
    const { host, port, network: model } = options;
    return await listenBehindNetwork(server, { host, port, rttMs: model.rttMs }, network.serverTls);
  } catch (error) {
    server.close();
    state.clock.cancelAll();
    await state.removeDataDir();
    throw error;
  }
}

/** Ends every session, then stops everything in the order the parts depend on; runs once. */
function closeOnce(
  parts: EmulatorParts,
  state: State,
  { browser, account }: Services,
  server: Server,
  listening: Listening,
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  const close = async () => {
    browser.flaky.set(undefined);
    await browser.endAll('emulator_closed');
    await account.idle();
    await parts.runtime.shutdown();
    state.clock.cancelAll();
    await listening.front?.close();
    listening.tls?.close();
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    await state.removeDataDir();
  };
  // Every call shares the first one's promise (close() from several places).
  return () => (closing ??= close());
}

interface State {
  clock: EmulatorClock;
  store: Store;
  faults: FaultRegistry;
  /** Profile dirs and synthetic recordings; removed on close (or on a crash, at exit). */
  dataDir: string;
  removeDataDir(): Promise<void>;
}

async function createState(options: ResolvedOptions): Promise<State> {
  const clock = new EmulatorClock();
  const dataDir = await mkdtemp(join(tmpdir(), 'remote-browser-emulator-data-'));
  // A crash or an unhandled Ctrl-C before close() must not leave the data dir behind.
  const forgetDataDir = removeOnExit(dataDir);
  return {
    clock,
    store: new Store(clock, options),
    faults: new FaultRegistry(),
    dataDir,
    async removeDataDir() {
      await rm(dataDir, { recursive: true, force: true });
      forgetDataDir();
    },
  };
}

/** Every service on the one origin, each under its own prefix; a new service is one more line. */
function mountServices(
  { browser, account }: Services,
  admin: ReturnType<typeof adminModule>,
): Router {
  const router = new Router();
  router.mount(browser.routes);
  router.mount(browser.recordingFiles);
  router.mount(account.routes);
  router.mount(account.adminRoutes);
  router.mount(admin);
  return router;
}
