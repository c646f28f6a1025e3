/**
 * `reapSessions()` (reap.ts) on its own, against a scripted service on a real loopback server:
 * which ledger entries and intents count as leftovers (another process's, dead, same origin),
 * what is counted as ended, gone or failed, and what the ledger holds afterwards. Leftovers of
 * a dead process are written as such: lines with a pid far above any pid_max.
 */
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import {
  type CreateIntent,
  cacheDir,
  ledgerPath,
  openEntries,
  openIntents,
  recordCreated,
  recordCreating,
  recordDeleteFailed,
} from '../../src/launch/ledger.js';
import { reapSessions } from '../../src/launch/reap.js';
import { setEnv } from '../helpers/env.js';
import { json } from '../helpers/http-server.js';
import { TOKEN, useFakeService } from './fake-service.js';

const service = useFakeService('rb-reap-');
const SESSIONS = /^\/sessions$/;
const ONE = /^\/sessions\/[^/]+$/;
/** No process has this pid (above Linux's pid_max): a run that died. */
const DEAD = 2 ** 30;

// Each test starts from an empty ledger.
beforeEach(() => rmSync(ledgerPath(), { force: true }));

/** A ledger line as another process wrote it. */
function write(line: Record<string, unknown>): void {
  mkdirSync(cacheDir(), { recursive: true });
  appendFileSync(ledgerPath(), `${JSON.stringify(line)}\n`);
}
const leftover = (id: string, pid = DEAD, origin = service.origin) =>
  write({ op: 'created', id, origin, pid, createdAt: new Date().toISOString() });
const intentOf = (id: string, over: Partial<CreateIntent> = {}): CreateIntent => ({
  intent: id,
  origin: service.origin,
  pid: DEAD,
  at: new Date(Date.now() - 1000).toISOString(),
  targeting: { country: 'us' },
  ...over,
});
const ledgerIds = () => openEntries().map((e) => e.id);
const deleted = () => service.calls('DELETE', ONE).map((r) => r.url.split('/').pop());

describe('reapSessions: which entries are leftovers', () => {
  it("ends a dead process's running sessions of this origin and forgets them", async () => {
    const api = service.api();
    const a = service.createSession('{"country":"us"}').id;
    const b = service.createSession('{"country":"us"}').id;
    leftover(a);
    leftover(b);
    const result = await reapSessions({ api });
    expect(result).toEqual({ ended: [a, b], alreadyGone: [], failed: [] });
    expect(service.calls('GET', SESSIONS).map((r) => r.url)).toEqual([
      expect.stringMatching(/\?status=running$/),
    ]);
    expect(service.running()).toEqual([]);
    expect(ledgerIds()).toEqual([]);
  });

  it("leaves this process's own sessions, another origin's, and a live process's alone", async () => {
    const api = service.api();
    const mine = service.createSession('').id;
    const elsewhere = service.createSession('').id;
    const alive = service.createSession('').id;
    recordCreated(mine, service.origin);
    leftover(elsewhere, DEAD, 'http://127.0.0.1:1');
    // The parent of this test process: alive, not us.
    leftover(alive, process.ppid);
    const result = await reapSessions({ api });
    expect(result).toEqual({ ended: [], alreadyGone: [], failed: [] });
    // Nothing to do: the service is not even asked.
    expect(service.calls('GET', SESSIONS)).toHaveLength(0);
    expect(service.running()).toHaveLength(3);
    expect(ledgerIds().sort()).toEqual([mine, elsewhere, alive].sort());
  });

  it("includeLiveProcesses also ends a live process's sessions, never this process's", async () => {
    const api = service.api();
    const mine = service.createSession('').id;
    const alive = service.createSession('').id;
    recordCreated(mine, service.origin);
    leftover(alive, process.ppid);
    const result = await reapSessions({ api, includeLiveProcesses: true });
    expect(result.ended).toEqual([alive]);
    expect(deleted()).toEqual([alive]);
    expect(ledgerIds()).toEqual([mine]);
  });

  it("a session whose DELETE failed is ended even when it is this process's, but only on its origin", async () => {
    const api = service.api();
    const failed = service.createSession('').id;
    const otherOrigin = service.createSession('').id;
    recordCreated(failed, service.origin);
    recordDeleteFailed(failed);
    leftover(otherOrigin, process.pid, 'http://127.0.0.1:1');
    write({ op: 'delete-failed', id: otherOrigin, at: new Date().toISOString() });
    const result = await reapSessions({ api });
    expect(result.ended).toEqual([failed]);
    expect(deleted()).toEqual([failed]);
    expect(ledgerIds()).toEqual([otherOrigin]);
  });
});

describe('reapSessions: what it counts', () => {
  it('a leftover the service no longer lists is already gone: no DELETE, recorded gone', async () => {
    const api = service.api();
    const gone = service.createSession('').id;
    service.sessions.get(gone)!.status = 'ended';
    leftover(gone);
    const result = await reapSessions({ api });
    expect(result).toEqual({ ended: [], alreadyGone: [gone], failed: [] });
    expect(deleted()).toEqual([]);
    expect(ledgerIds()).toEqual([]);
  });

  it('a DELETE answering 404 (ended meanwhile) counts as gone; any other failure stays for the next reap', async () => {
    const api = service.api();
    const raced = service.createSession('').id;
    const stuck = service.createSession('').id;
    leftover(raced);
    leftover(stuck);
    service.on('DELETE', ONE, (req, res) =>
      req.url.endsWith(raced)
        ? json(404, { error: { code: 'not_found', message: 'no such session' } })(req, res)
        : json(500, { error: { code: 'internal', message: 'delete exploded' } })(req, res),
    );
    const result = await reapSessions({ api });
    expect(result.ended).toEqual([]);
    expect(result.alreadyGone).toEqual([raced]);
    expect(result.failed).toEqual([{ id: stuck, error: expect.stringContaining('→ 500') }]);
    expect(ledgerIds()).toEqual([stuck]);
    service.off('DELETE');
    expect((await reapSessions({ api })).ended).toEqual([stuck]);
    expect(ledgerIds()).toEqual([]);
  });

  it("passes the caller's signal and timeout to the calls", async () => {
    const api = service.api();
    leftover(service.createSession('').id);
    service.on('GET', SESSIONS, () => new Promise<void>(() => {}));
    await expect(reapSessions({ api, timeout: 200 })).rejects.toThrow(/timed out|timeout/i);
    const controller = new AbortController();
    const reaping = reapSessions({ api, signal: controller.signal });
    controller.abort();
    await expect(reaping).rejects.toThrow(/abort/i);
    expect(service.running()).toHaveLength(1);
  });
});

describe('reapSessions: its own default timeout', () => {
  it("waits up to 30 s by default, whatever the client's own default", async () => {
    const api = service.api({ timeout: 100 });
    const id = service.createSession('').id;
    leftover(id);
    // The list answers well after the client's 100 ms.
    service.on('GET', SESSIONS, async (req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      json(200, { data: service.running() })(req, res);
    });
    expect((await reapSessions({ api })).ended).toEqual([id]);
  });
});

describe('reapSessions: creates a dead run left on the wire', () => {
  it('ends each matching session nobody here knows once, and settles the intents', async () => {
    const api = service.api();
    const known = service.createSession('{"country":"us"}').id;
    leftover(known, process.pid);
    const orphan = service.createSession('{"country":"us"}').id;
    const stranger = service.createSession('{"country":"de"}').id;
    // Two intents that both match the orphan: one DELETE.
    recordCreating(intentOf('i-1'));
    recordCreating(intentOf('i-2'));
    // This process's own intent is live: never reconciled here (another targeting: a live
    // intent that may have made the orphan would leave it, see the next test).
    recordCreating(intentOf('i-mine', { pid: process.pid, targeting: { country: 'fr' } }));
    const result = await reapSessions({ api });
    expect(result).toEqual({ ended: [orphan], alreadyGone: [], failed: [] });
    expect(deleted()).toEqual([orphan]);
    expect(
      service
        .running()
        .map((s) => s.id)
        .sort(),
    ).toEqual([known, stranger].sort());
    expect(openIntents().map((i) => i.intent)).toEqual(['i-mine']);
  });

  it("leaves a session that a live process's create, still on the wire, may have made", async () => {
    const api = service.api();
    const maybeTheirs = service.createSession('{"country":"us"}').id;
    recordCreating(intentOf('i-dead'));
    recordCreating(intentOf('i-live', { pid: process.pid }));
    const result = await reapSessions({ api });
    expect(result.ended).toEqual([]);
    expect(service.running().map((s) => s.id)).toEqual([maybeTheirs]);
    // The dead process's create stays open: a later reap, once the live one settled, decides.
    expect(openIntents().map((i) => i.intent)).toContain('i-dead');
  });

  it('an intent alone (no open entry) is enough to list and reconcile', async () => {
    const api = service.api();
    const orphan = service.createSession('{"country":"us"}').id;
    recordCreating(intentOf('i-1'));
    const result = await reapSessions({ api });
    expect(result.ended).toEqual([orphan]);
    expect(openIntents()).toEqual([]);
  });

  it('a session created before the intent (past the skew) is not its orphan', async () => {
    const api = service.api();
    service.createSession('{"country":"us"}');
    recordCreating(intentOf('i-1', { at: new Date(Date.now() + 3_600_000).toISOString() }));
    const result = await reapSessions({ api });
    expect(result.ended).toEqual([]);
    expect(service.running()).toHaveLength(1);
    expect(openIntents()).toEqual([]);
  });
});

describe('reapSessions: its client', () => {
  it('builds one from the environment when none is given', async () => {
    const saved = { url: process.env.REMOTE_BROWSER_URL, token: process.env.REMOTE_BROWSER_TOKEN };
    process.env.REMOTE_BROWSER_URL = service.origin;
    process.env.REMOTE_BROWSER_TOKEN = TOKEN;
    try {
      const id = service.createSession('').id;
      leftover(id);
      expect((await reapSessions()).ended).toEqual([id]);
      expect(service.calls('GET', SESSIONS)[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    } finally {
      for (const [key, value] of [
        ['REMOTE_BROWSER_URL', saved.url],
        ['REMOTE_BROWSER_TOKEN', saved.token],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it("closes the client it built, never the caller's", async () => {
    const closes = vi.spyOn(BrowserApi.prototype, 'close');
    const api = service.api();
    leftover(service.createSession('').id);
    await reapSessions({ api });
    expect(closes).not.toHaveBeenCalled();
    const restore = setEnv({ REMOTE_BROWSER_URL: service.origin, REMOTE_BROWSER_TOKEN: TOKEN });
    try {
      leftover(service.createSession('').id);
      await reapSessions();
      expect(closes).toHaveBeenCalledTimes(1);
      // Closed after its work, even when that work fails.
      leftover(service.createSession('').id);
      service.on('GET', SESSIONS, json(500, { error: { code: 'internal', message: 'down' } }));
      await expect(reapSessions()).rejects.toThrow(/500/);
      expect(closes).toHaveBeenCalledTimes(2);
    } finally {
      restore();
      closes.mockRestore();
    }
  });
});
