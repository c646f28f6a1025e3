/**
 * The session tracker (tracker.ts) on its own: each transition of a create and a session, what
 * its observers (the watchdog feed) hear and hear once, the ledger line each transition writes,
 * `end()`'s single shared DELETE and how long it remembers ends, the `kept` state, and the
 * per-client caches keyed by `clientKey()`. Against a scripted service on a real loopback server.
 * The lost-create, abandoned-create and exit paths are in lost-create.test.ts and
 * exit-cleanup.test.ts.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi, type SessionCreated } from '../../src/browser-api/index.js';
import { setDebugSink } from '../../src/http/debug.js';
import { NotFoundError } from '../../src/http/errors.js';
import { ledgerPath, openEntries, openIntents } from '../../src/launch/ledger.js';
import { clearPreflightCache, preflight } from '../../src/launch/preflight.js';
import { releaseAll, SessionLease } from '../../src/launch/session-lease.js';
import {
  clientKey,
  type Lease,
  ownClient,
  REMEMBERED_ENDS,
  SessionTracker,
  type TrackerObserver,
  tracker,
} from '../../src/launch/tracker.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { type FakeSession, heldUntil, startFakeService, useFakeService } from './fake-service.js';

const service = useFakeService('rb-tracker-');
const ONE = /^\/sessions\/[^/]+$/;
const BODY = { country: 'us' };

const lease = (id: string, api = service.api()): Lease => ({ id, api, release: async () => {} });
const pending = () => new Promise<SessionCreated>(() => {});

/** An observer that writes each event it hears as one line. */
function recorder(): { events: string[]; observer: TrackerObserver } {
  const events: string[] = [];
  return {
    events,
    observer: {
      lease: (l, event) => events.push(`lease ${l.id} ${event}`),
      create: (i, event, createdId) =>
        events.push(`create ${i.intent} ${event}${createdId ? ` ${createdId}` : ''}`),
      ended: (id) => events.push(`ended ${id}`),
    },
  };
}

/** The ledger's lines about `id`, as `op by`. */
function ledgerOf(id: string): string[] {
  return readFileSync(ledgerPath(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { op: string; id?: string; by?: string })
    .filter((l) => l.id === id)
    .map((l) => (l.by ? `${l.op} ${l.by}` : l.op));
}

describe('a create', () => {
  it('sent: the intent is in the ledger and heard before the request leaves', () => {
    const t = new SessionTracker();
    const { events, observer } = recorder();
    t.observe(observer);
    const api = service.api();
    let seen: string[] = [];
    const c = t.createSent(api, BODY, () => {
      seen = openIntents().map((i) => i.intent);
      return pending();
    });
    expect(seen).toEqual([c.intent.intent]);
    expect(c.intent.targeting).toEqual({ country: 'us' });
    expect(t.creates()).toEqual([c]);
    expect(events).toEqual([`create ${c.intent.intent} started`]);
    t.refused(c);
  });

  it('answered: one created line, and the session comes with the settling, in one event', async () => {
    // The process's tracker: the lease below opens there.
    const t = tracker;
    const { events, observer } = recorder();
    const unsubscribe = t.observe(observer);
    const api = service.api();
    const c = t.createSent(api, BODY, () => api.sessions.create(BODY));
    const created = await c.call;
    // Settled already: a later refusal (an exit path settling again) is silent.
    t.refused(c);
    expect(t.creates()).toEqual([]);
    expect(events).toEqual([
      `create ${c.intent.intent} started`,
      `create ${c.intent.intent} settled ${created.id}`,
    ]);
    expect(ledgerOf(created.id)).toEqual(['created']);
    expect(openIntents()).toEqual([]);
    // Its lease opening writes no second created line.
    const l = new SessionLease(api, created.id);
    expect(ledgerOf(created.id)).toEqual(['created']);
    await l.release();
    unsubscribe();
  });

  it('refused: settled without a session, once', () => {
    const t = new SessionTracker();
    const { events, observer } = recorder();
    t.observe(observer);
    const c = t.createSent(service.api(), BODY, pending);
    t.refused(c);
    t.refused(c);
    expect(events).toEqual([
      `create ${c.intent.intent} started`,
      `create ${c.intent.intent} settled`,
    ]);
    expect(openIntents()).toEqual([]);
  });
});

describe('a session', () => {
  it('opened, ending, ended: one line each, heard once; the lease is no longer held', async () => {
    const events: string[] = [];
    const unsubscribe = tracker.observe({
      lease: (l, event) => events.push(`${l.id} ${event}`),
    });
    const api = service.api();
    const l = new SessionLease(api, service.createSession('').id);
    expect(tracker.holds(l)).toBe(true);
    await Promise.all([l.release(), l.release()]);
    unsubscribe();
    expect(tracker.holds(l)).toBe(false);
    expect(events).toEqual([`${l.id} opened`, `${l.id} closed`]);
    expect(ledgerOf(l.id)).toEqual(['created', 'deleting', 'ended close']);
  });

  it("handed over: 'ended kept' in the ledger (reap must not end it), no DELETE", async () => {
    const api = service.api();
    const l = new SessionLease(api, service.createSession('').id);
    l.keep();
    await releaseAll();
    expect(service.calls('DELETE', ONE)).toHaveLength(0);
    expect(ledgerOf(l.id)).toEqual(['created', 'ended kept']);
  });

  it('kept: still ours (open in the ledger, ended by the exit paths) until its window ends it', async () => {
    const api = service.api();
    const l = new SessionLease(api, service.createSession('').id);
    tracker.kept(l, 50);
    expect(tracker.holds(l)).toBe(true);
    expect(openEntries().map((e) => e.id)).toContain(l.id);
    await eventually(() => !tracker.holds(l), 5000, 'the kept window');
    expect(service.running()).toEqual([]);
    expect(ledgerOf(l.id)).toEqual(['created', 'deleting', 'ended close']);
  });

  it('kept, then released before its window: one DELETE, the timer does nothing more', async () => {
    const api = service.api();
    const l = new SessionLease(api, service.createSession('').id);
    tracker.kept(l, 30);
    await l.release();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(service.calls('DELETE', ONE)).toHaveLength(1);
  });

  it('says on the launch debug channel which session was deleted', async () => {
    const lines: string[] = [];
    const previousDebug = process.env.DEBUG;
    const restore = setDebugSink((line) => lines.push(line));
    process.env.DEBUG = 'remote-browser:launch';
    try {
      const l = new SessionLease(service.api(), service.createSession('').id);
      await l.release();
      expect(lines).toContain(`remote-browser:launch session ${l.id} deleted`);
    } finally {
      setDebugSink(restore);
      if (previousDebug === undefined) delete process.env.DEBUG;
      else process.env.DEBUG = previousDebug;
    }
  });

  it('the exit paths end every client’s sessions', async () => {
    const a = new SessionLease(service.api(), service.createSession('').id);
    const b = new SessionLease(service.api(), service.createSession('').id);
    expect(tracker.leases()).toEqual(expect.arrayContaining([a, b]));
    await tracker.endEverything(0);
    expect([a.active, b.active]).toEqual([false, false]);
    expect(service.running()).toEqual([]);
  });

  it('observers may hear only some events; observe() returns the unsubscribe', () => {
    const t = new SessionTracker();
    const ends: string[] = [];
    const all = recorder();
    t.observe({ ended: (id) => ends.push(id) });
    const unsubscribe = t.observe(all.observer);
    const l = lease('s-1');
    t.opened(l);
    unsubscribe();
    t.closed(l);
    t.closed(l);
    expect(all.events).toEqual(['lease s-1 opened']);
    expect(ends).toEqual([]);
    expect(t.leases()).toEqual([]);
  });
});

describe('end()', () => {
  it('sends one DELETE however many ask, with the call options given; observers hear the end once', async () => {
    const t = new SessionTracker();
    const { events, observer } = recorder();
    t.observe(observer);
    const client = service.api();
    const { id } = service.createSession('');
    const answers = await Promise.all([
      t.end(client, id, 'close', { timeout: 15_000 }),
      t.end(client, id, 'reap', { timeout: 15_000 }),
    ]);
    expect(await t.end(client, id, 'close', { timeout: 15_000 })).toBe('deleted');
    expect(answers).toEqual(['deleted', 'deleted']);
    expect(service.calls('DELETE', ONE)).toHaveLength(1);
    expect(events).toEqual([`ended ${id}`]);
    expect(ledgerOf(id)).toEqual(['ended close']);
  });

  it("a session the service no longer has is 'gone', in the ledger too, and heard as ended", async () => {
    const t = new SessionTracker();
    const { events, observer } = recorder();
    t.observe(observer);
    expect(await t.end(service.api(), 'no-such', 'close', { timeout: 15_000 })).toBe('gone');
    expect(events).toEqual(['ended no-such']);
    expect(ledgerOf('no-such')).toEqual(['ended gone']);
  });

  it('a failed DELETE is forgotten (the next call tries again) and is not an end', async () => {
    const t = new SessionTracker();
    const { events, observer } = recorder();
    t.observe(observer);
    const client = service.api();
    const { id } = service.createSession('');
    service.on('DELETE', ONE, json(500, { error: { code: 'internal', message: 'down' } }));
    const err = await t.end(client, id, 'close', { timeout: 15_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(NotFoundError);
    expect(events).toEqual([]);
    service.off('DELETE');
    expect(await t.end(client, id, 'close', { timeout: 15_000 })).toBe('deleted');
    expect(service.calls('DELETE', ONE)).toHaveLength(2);
    expect(events).toEqual([`ended ${id}`]);
  });

  it(`remembers the last ${REMEMBERED_ENDS} ends; an older one asked again is sent again`, async () => {
    const t = new SessionTracker();
    const client = service.api();
    const ids = Array.from({ length: REMEMBERED_ENDS + 1 }, () => service.createSession('').id);
    const call = { timeout: 15_000 };
    for (const id of ids) expect(await t.end(client, id, 'close', call)).toBe('deleted');
    expect(service.calls('DELETE', ONE)).toHaveLength(ids.length);
    const [oldest] = ids as [string];
    const newest = ids.at(-1) as string;
    expect(await t.end(client, newest, 'close', call)).toBe('deleted');
    expect(service.calls('DELETE', ONE)).toHaveLength(ids.length);
    expect(await t.end(client, oldest, 'close', call)).toBe('deleted');
    expect(service.calls('DELETE', ONE)).toHaveLength(ids.length + 1);
  });

  it('the same id on another origin is another session', async () => {
    const t = new SessionTracker();
    const other = await startFakeService();
    try {
      const { id } = service.createSession('');
      other.sessions.set(id, { ...(service.sessions.get(id) as FakeSession) });
      await t.end(service.api(), id, 'close', { timeout: 15_000 });
      await t.end(other.api(), id, 'close', { timeout: 15_000 });
      expect(service.calls('DELETE', ONE)).toHaveLength(1);
      expect(other.calls('DELETE', ONE)).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it("uses the timeout it is given, not the client's", async () => {
    const t = new SessionTracker();
    const { id } = service.createSession('');
    service.on('DELETE', ONE, heldUntil(new Promise(() => {}), json(200, {})));
    const err = await t.end(service.api(), id, 'close', { timeout: 50 }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/timed out after 50 ms/);
  });
});

describe('per-client caches (clientKey)', () => {
  let server: TestServer;
  const clients: BrowserApi[] = [];
  const client = () => {
    const api = new BrowserApi({ baseUrl: server.origin, token: 't' });
    clients.push(api);
    return api;
  };
  const validations = () =>
    server.requests.filter((r) => r.url.endsWith('/configurations/validate'));

  beforeAll(async () => {
    server = await startTestServer();
    server.respond(json(200, { data: { valid: true, issues: null } }));
  });
  afterAll(async () => {
    await Promise.all(clients.map((api) => api.close()));
    clearPreflightCache();
    await server.close();
  });

  it("is the caller's client itself, and one shared key for the clients launch/ builds", () => {
    const mine = client();
    expect(clientKey(mine)).toBe(mine);
    expect(clientKey(client())).not.toBe(clientKey(mine));
    expect(clientKey(ownClient(client()))).toBe(clientKey(ownClient(client())));
  });

  it('caches preflight results per client, with nothing to clear between clients', async () => {
    const call = { timeout: 5000 };
    const first = client();
    await preflight(first, { country: 'us' }, true, 'launchRemote', call);
    await preflight(first, { country: 'us' }, true, 'launchRemote', call);
    expect(validations()).toHaveLength(1);
    // A fresh client starts with an empty cache: it asks the service itself.
    await preflight(client(), { country: 'us' }, true, 'launchRemote', call);
    expect(validations()).toHaveLength(2);
    // Clients launch/ builds itself share one cache.
    await preflight(ownClient(client()), { country: 'de' }, true, 'launchRemote', call);
    await preflight(ownClient(client()), { country: 'de' }, true, 'launchRemote', call);
    expect(validations()).toHaveLength(3);
    clearPreflightCache();
    await preflight(ownClient(client()), { country: 'de' }, true, 'launchRemote', call);
    expect(validations()).toHaveLength(4);
  });
});
