/**
 * A scripted browser service on a real loopback HTTP server, for launch unit tests that need
 * no Chromium: creates hand out ids, DELETEs end them, and each route can be overridden to
 * inject a fault (a 502 after the create was handled, a DELETE that keeps failing...).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { releaseAll } from '../../src/launch/remote-session.js';
import { deferred } from '../helpers/deferred.js';
import {
  type Handler,
  json,
  type RecordedRequest,
  startTestServer,
  type TestServer,
} from '../helpers/http-server.js';

export const TOKEN = 'lease-unit-token-abc123';

export interface FakeSession {
  id: string;
  status: 'running' | 'ended';
  created_at: string;
  config: Record<string, unknown>;
}

export interface FakeService {
  server: TestServer;
  origin: string;
  sessions: Map<string, FakeSession>;
  /** Requests whose method and wire path (query stripped) match. */
  calls(method: string, path: RegExp): RecordedRequest[];
  /** Replaces the handling of matching requests (first match wins; later calls take precedence). */
  on(method: string, path: RegExp, handler: Handler): void;
  /** Drops the overrides of `method` (the default handling applies again). */
  off(method: string): void;
  /** Creates a session as the service would (used by handlers that "handle, then fail"). */
  createSession(body: string): FakeSession;
  /** A client on this service (closed by `close`); `timeout` overrides its default per call. */
  api(options?: { timeout?: number }): BrowserApi;
  running(): FakeSession[];
  close(): Promise<void>;
}

const PREFIX = /^\/api\/v2\/browser/;
/** Ids unique across services in one test process: the ledger outlives each service. */
let services = 0;

export async function startFakeService(): Promise<FakeService> {
  const server = await startTestServer();
  const sessions = new Map<string, FakeSession>();
  const overrides: { method: string; path: RegExp; handler: Handler }[] = [];
  const clients: BrowserApi[] = [];
  const prefix = `s${++services}`;
  let next = 1;

  const createSession = (body: string): FakeSession => {
    const wire = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    const { proxy_password: _secret, ...config } = wire;
    const session: FakeSession = {
      id: `${prefix}-${next++}`,
      status: 'running',
      created_at: new Date().toISOString(),
      config,
    };
    sessions.set(session.id, session);
    return session;
  };
  const created = (s: FakeSession) => ({
    id: s.id,
    status: 'running',
    cdp_url: `ws://127.0.0.1:1/devtools/browser/${s.id}?token=cdp-secret`,
  });

  const defaults = (req: RecordedRequest, res: ServerResponse) => {
    const path = pathOf(req);
    const send = (status: number, data: unknown) => json(status, data)(req, res);
    if (req.method === 'POST' && path === '/sessions')
      return send(200, { data: created(createSession(req.body)) });
    if (req.method === 'GET' && path === '/sessions')
      return send(200, { data: [...sessions.values()].filter((s) => s.status === 'running') });
    const connection = /^\/sessions\/([^/]+)\/connection$/.exec(path);
    if (req.method === 'GET' && connection) {
      const s = sessions.get(decodeURIComponent(connection[1] as string));
      if (!s) return send(404, { error: { code: 'not_found', message: 'no such session' } });
      return send(200, {
        data: {
          ...created(s),
          status: s.status,
          debugger_address: '127.0.0.1:1',
          live_view_url: `http://127.0.0.1:1/live/${s.id}`,
          config: s.config,
        },
      });
    }
    const one = /^\/sessions\/([^/]+)$/.exec(path);
    if (req.method === 'DELETE' && one) {
      const s = sessions.get(decodeURIComponent(one[1] as string));
      if (!s) return send(404, { error: { code: 'not_found', message: 'no such session' } });
      // Idempotent, like the service: deleting an ended session is also a success.
      s.status = 'ended';
      return send(200, { data: { status: 'success' } });
    }
    if (req.method === 'POST' && path === '/configurations/validate')
      return send(200, { data: { valid: true, issues: null, normalized: {} } });
    return send(404, { error: { code: 'not_found', message: `no route ${req.method} ${path}` } });
  };

  server.respond((req, res) => {
    const path = pathOf(req);
    const override = overrides.find((o) => o.method === req.method && o.path.test(path));
    return (override?.handler ?? defaults)(req, res);
  });

  return {
    server,
    origin: server.origin,
    sessions,
    calls: (method, path) =>
      server.requests.filter((r) => r.method === method && path.test(pathOf(r))),
    on(method, path, handler) {
      overrides.unshift({ method, path, handler });
    },
    off(method) {
      for (let i = overrides.length - 1; i >= 0; i--)
        if (overrides[i]?.method === method) overrides.splice(i, 1);
    },
    createSession,
    api(options = {}) {
      const api = new BrowserApi({
        ...options,
        token: TOKEN,
        baseUrl: server.origin,
        proxyPassword: 'lease-unit-proxy-password',
        retry: { retries: 0 },
      });
      clients.push(api);
      return api;
    },
    running: () => [...sessions.values()].filter((s) => s.status === 'running'),
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await server.close();
    },
  };
}

function pathOf(req: RecordedRequest): string {
  return (req.url.split('?')[0] ?? '').replace(PREFIX, '');
}

/** A gate a held request waits on (`heldUntil(gate.opened, ...)`) until the test opens it. */
export function gate(): { open(): void; opened: Promise<void> } {
  const { promise, resolve } = deferred<void>();
  return { open: () => resolve(), opened: promise };
}

/** Answers `handler` after `until` resolves (a request held on the wire). */
export function heldUntil(until: Promise<unknown>, handler: Handler): Handler {
  return async (req, res) => {
    await until;
    await handler(req, res);
  };
}

/**
 * The setup the launch unit tests share: the file's ledger in a temporary cache dir, a new
 * service per test, and after each test every session this process still holds released and
 * the service closed. A file's own afterEach runs before that (vitest runs after-hooks in
 * reverse order), its own beforeEach after the service started. Returns the current test's
 * service.
 */
export function useFakeService(cachePrefix: string): FakeService {
  let current: FakeService | undefined;
  let cacheDir = '';
  const previous = process.env.REMOTE_BROWSER_CACHE_DIR;
  beforeAll(() => {
    cacheDir = mkdtempSync(join(tmpdir(), cachePrefix));
    process.env.REMOTE_BROWSER_CACHE_DIR = cacheDir;
  });
  afterAll(() => {
    if (previous === undefined) delete process.env.REMOTE_BROWSER_CACHE_DIR;
    else process.env.REMOTE_BROWSER_CACHE_DIR = previous;
    // A watchdog child of a test may still append its last ledger line (after the DELETE it
    // waited for) while the dir goes: retry, as rmdir then fails with ENOTEMPTY.
    rmSync(cacheDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });
  beforeEach(async () => {
    current = await startFakeService();
  });
  afterEach(async () => {
    await releaseAll();
    await current?.close();
    current = undefined;
  });
  const now = (): FakeService => {
    if (!current) throw new Error('useFakeService: the service starts in beforeEach');
    return current;
  };
  return {
    get server() {
      return now().server;
    },
    get origin() {
      return now().origin;
    },
    get sessions() {
      return now().sessions;
    },
    calls: (method, path) => now().calls(method, path),
    on: (method, path, handler) => now().on(method, path, handler),
    off: (method) => now().off(method),
    createSession: (body) => now().createSession(body),
    api: () => now().api(),
    running: () => now().running(),
    close: () => now().close(),
  };
}
