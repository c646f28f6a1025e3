/**
 * The emulated browser service, built like the account service (`createAccountService`): narrow
 * deps in, route modules and a few calls out. It owns the session lifecycle, the one registry of
 * sessions (the store's, handed to the runtime's proxy and live view as a `SessionDirectory`),
 * the CDP proxy, the live view and the signer of recording URLs.
 */
import { timingSafeEqual } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { BROWSER_API_PATH } from '../../http/index.js';
import type { EmulatorClock } from '../clock.js';
import type { ResolvedOptions } from '../options.js';
import type {
  BrowserRuntime,
  CdpProxy,
  CdpProxyOptions,
  CdpTargetResolver,
  LiveView,
  LiveViewOptions,
  RunningSession,
  SessionDirectory,
} from '../runtime/index.js';
import type { RouteModule } from '../server/router.js';
import { registerConfigurationRoutes } from './configurations.js';
import {
  ClientConnections,
  type FlakyNetwork,
  flakyNetwork,
  sessionIdOfCdpPath,
} from './connection-cuts.js';
import type { BrowserServiceContext } from './context.js';
import { registerLocationRoutes } from './locations.js';
import { registerProfileRoutes } from './profiles.js';
import { registerProxyOptionRoutes } from './proxy-options.js';
import { registerRecordingFileRoutes } from './recording-files.js';
import { RECORDING_FILES_PREFIX, registerRecordingRoutes } from './recordings.js';
import { SessionLifecycle } from './session-lifecycle.js';
import { registerSessionRoutes } from './sessions.js';
import { registerSessionsAsyncRoutes } from './sessions-async.js';
import type { Store } from './store.js';
import { addSyntheticRecording, SYNTHETIC_RECORDINGS_DIR } from './synthetic-recording.js';
import { registerToolRoutes } from './tools.js';
import { UrlSigner } from './url-signer.js';

export interface BrowserServiceDeps {
  options: ResolvedOptions;
  clock: EmulatorClock;
  store: Store;
  runtime: BrowserRuntime;
  createProxy(options: CdpProxyOptions): CdpProxy;
  createLiveView(options: LiveViewOptions): LiveView;
  /** Folder for persistent profile dirs and synthetic recordings. */
  dataDir: string;
  /** `http://host:port` once listening. */
  origin(): string;
  /** Logs one line, redacted. */
  log(level: 'info' | 'warn' | 'error', message: string): void;
}

export interface BrowserService {
  /** The API, mounted under `/api/v2/browser`. */
  readonly routes: RouteModule;
  /** Recording files behind their signed URLs, under `/recording-files`. */
  readonly recordingFiles: RouteModule;
  /** The CDP proxy's and live view's HTTP requests; false when the path is not theirs. */
  handleHttp(req: IncomingMessage, res: ServerResponse): boolean;
  /** The CDP proxy's websocket upgrades; false when the path is not its. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** A recording of any size without a session that made it (admin API). */
  addSyntheticRecording(
    accountId: string,
    sizeBytes: number,
  ): Promise<{ sessionId: string; recordingId: string }>;
  /** Ends every session (creates in flight included) and waits for their recordings. */
  endAll(reason: string): Promise<void>;
  /** Removes what the service keeps on disk (profile dirs, synthetic recordings). */
  clearFiles(): Promise<void>;
  /**
   * Cuts the clients' websockets (cdp_url and debugger_address) of one running session, or of
   * every session; the sessions keep running. Undefined for a session that is not running.
   */
  cutConnections(sessionId?: string): Promise<{ sessions: number; sockets: number } | undefined>;
  /** The "flaky network" mode: a cut of one random session's connections at random intervals. */
  readonly flaky: FlakyNetwork;
  /** Cuts made since the emulator started (or the last reset), each counting one session. */
  cutsMade(): number;
}

/** The route files of the API, one per resource of the spec, mounted under `/api/v2/browser`. */
const API_ROUTES = [
  registerProxyOptionRoutes,
  registerLocationRoutes,
  registerConfigurationRoutes,
  registerSessionRoutes,
  registerSessionsAsyncRoutes,
  registerRecordingRoutes,
  registerToolRoutes,
  registerProfileRoutes,
];

/** Compared as bytes after a length check: a non-ASCII guess of the same length is just wrong. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createBrowserService(deps: BrowserServiceDeps): BrowserService {
  const { store } = deps;
  const sessions = new SessionLifecycle(deps);
  const running = (sessionId: string): RunningSession | undefined => {
    const session = store.sessions.get(sessionId);
    const browser = session?.browser;
    if (!session || !browser || session.status !== 'running') return undefined;
    return { browser, onActivity: () => sessions.touch(session) };
  };
  const directory: SessionDirectory = {
    running,
    anyRunning: () => {
      const session = store.runningSessions().find((s) => s.browser);
      return session && running(session.id);
    },
  };
  const resolve: CdpTargetResolver = (sessionId, accessToken) => {
    const session = store.sessions.get(sessionId);
    const admitted = session && accessToken && sameSecret(accessToken, session.accessToken);
    return admitted ? running(sessionId) : undefined;
  };
  const ctx: BrowserServiceContext = {
    options: deps.options,
    clock: deps.clock,
    store,
    sessions,
    proxy: deps.createProxy({ publicOrigin: deps.origin, resolve, sessions: directory }),
    // The live view URL is a capability: its own token, in the URL (an <img> sends no header).
    liveView: deps.createLiveView({
      resolve: (sessionId, token) => {
        const session = store.sessions.get(sessionId);
        if (!session || !token || !sameSecret(token, session.liveViewToken)) return undefined;
        return running(sessionId)?.browser;
      },
    }),
    signer: new UrlSigner(),
    dataDir: deps.dataDir,
  };
  const connections = new ClientConnections();
  const cutOne = async (sessionId: string) => {
    const session = store.sessions.get(sessionId);
    if (session?.status !== 'running') return 0;
    const endpoint = session.debuggerEndpoint ? await session.debuggerEndpoint : undefined;
    const sockets = connections.cut(sessionId) + (endpoint?.cutClients() ?? 0);
    if (sockets > 0) connections.cuts += 1;
    return sockets;
  };
  const flaky = flakyNetwork(() => {
    const candidates = new Set(connections.sessionsWithClients());
    for (const session of store.runningSessions()) {
      if (session.debuggerEndpoint) candidates.add(session.id);
    }
    const ids = [...candidates];
    const picked = ids[Math.floor(Math.random() * ids.length)];
    if (picked !== undefined) void cutOne(picked).catch(() => {});
  });
  flaky.set(deps.options.network.flaky?.meanIntervalMs);
  return {
    routes: {
      prefix: BROWSER_API_PATH,
      register(routes) {
        for (const register of API_ROUTES) register(routes, ctx);
      },
    },
    recordingFiles: {
      prefix: RECORDING_FILES_PREFIX,
      register: (routes) => registerRecordingFileRoutes(routes, ctx),
    },
    handleHttp: (req, res) => ctx.proxy.handleHttp(req, res) || ctx.liveView.handleHttp(req, res),
    handleUpgrade: (req, socket, head) => {
      if (!ctx.proxy.handleUpgrade(req, socket, head)) return false;
      const sessionId = sessionIdOfCdpPath(req.url);
      // A refused upgrade is tracked too, until its socket closes a moment later: harmless.
      if (sessionId !== undefined && !socket.destroyed) connections.track(sessionId, socket);
      return true;
    },
    addSyntheticRecording: (accountId, sizeBytes) =>
      addSyntheticRecording(ctx, accountId, sizeBytes),
    endAll: (reason) => sessions.endAll(reason),
    async cutConnections(sessionId) {
      if (sessionId !== undefined && store.sessions.get(sessionId)?.status !== 'running') {
        return undefined;
      }
      const ids = sessionId !== undefined ? [sessionId] : store.runningSessions().map((s) => s.id);
      const counts = await Promise.all(ids.map(cutOne));
      const sockets = counts.reduce((sum, count) => sum + count, 0);
      return { sessions: counts.filter((count) => count > 0).length, sockets };
    },
    flaky,
    cutsMade: () => connections.cuts,
    async clearFiles() {
      await rm(join(deps.dataDir, 'profiles'), { recursive: true, force: true });
      await rm(join(deps.dataDir, SYNTHETIC_RECORDINGS_DIR), { recursive: true, force: true });
    },
  };
}
