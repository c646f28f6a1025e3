/**
 * The session tracker (tracker.ts), against a scripted service on a real loopback server: each
 * transition of a create and a session, what its observers (the watchdog feed) hear and hear
 * once, the ledger line each transition writes, `end()`'s single shared DELETE and how long it
 * remembers ends, the `kept` state, and the per-client caches keyed by `clientKey()`. Then the
 * paths that decide how a create ended: one whose answer was lost (which errors count as lost,
 * which running sessions the reconciliation ends and which it must never touch, what the
 * launch's error says, when the intent is settled), one its launch stopped waiting for, and
 * `endEverything()` as the exit hooks call it (every outcome of a create still on the wire when
 * the process goes away, and the leases a finishing create opens meanwhile; the child-process
 * exit tests cover the hooks themselves). The 2 s pause before a second look is skipped (and
 * counted); every other sleep is real.
 */
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserApi, type SessionCreated } from '../../src/browser-api/index.js';
import { callScope } from '../../src/http/call-options.js';
import { setDebugSink } from '../../src/http/debug.js';
import { ApiError, ConnectionError, NotFoundError, TimeoutError } from '../../src/http/errors.js';
import { LaunchError } from '../../src/launch/errors.js';
import { ledgerPath, openEntries, openIntents, recordCreated } from '../../src/launch/ledger.js';
import { clearPreflightCache, preflight } from '../../src/launch/preflight.js';
import { releaseAll, RemoteSession as SessionLease } from '../../src/launch/remote-session.js';
import {
  clientKey,
  isLostCreate,
  type Lease,
  ownClient,
  REMEMBERED_ENDS,
  SessionTracker,
  type TrackedCreate,
  type TrackerObserver,
  tracker,
} from '../../src/launch/tracker.js';
import { deferred } from '../helpers/deferred.js';
import { setEnv } from '../helpers/env.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { type FakeSession, heldUntil, startFakeService, useFakeService } from './fake-service.js';

const service = useFakeService('rb-tracker-');
const SESSIONS = /^\/sessions$/;
const ONE = /^\/sessions\/[^/]+$/;
const BODY = { country: 'us' };

const pauses = vi.hoisted(() => [] as number[]);
vi.mock('../../src/http/node-builtins.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/http/node-builtins.js')>();
  return {
    ...original,
    sleep: (ms?: number, value?: unknown, options?: unknown) => {
      if (ms !== 2000) return original.sleep(ms, value, options as never);
      pauses.push(ms);
      return Promise.resolve(value);
    },
  };
});

const US = { country: 'us' };

beforeEach(() => {
  pauses.length = 0;
  rmSync(ledgerPath(), { force: true });
});

const lost = () => new ConnectionError('socket hang up', { requestSent: true });
const apiError = (status: number) =>
  new ApiError({ status, method: 'POST', path: '/sessions', message: 'gateway', body: {} });
const deleted = () =>
  service
    .calls('DELETE', ONE)
    .map((r) => r.url.split('/').pop())
    .sort();
const running = () => service.running().map((s) => s.id);
/** Who the ledger says ended `id` (its last 'ended' line). */
function endedBy(id: string): string | undefined {
  return readFileSync(ledgerPath(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { op: string; id?: string; by?: string })
    .filter((l) => l.op === 'ended' && l.id === id)
    .pop()?.by;
}

/**
 * What a reconciliation of `c` ended, from the DELETEs it sent: the lost path's (it waits for
 * this process's other creates, then looks twice) or the exit path's (one look, no wait).
 */
async function reconcile(
  c: TrackedCreate,
  how: { waitForOthers: boolean; looks: 1 | 2 },
): Promise<string[]> {
  const before = service.calls('DELETE', ONE).length;
  if (how.waitForOthers || how.looks === 2) await tracker.lost(c, 'launchRemote', lost());
  else await tracker.endEverything(0);
  return service
    .calls('DELETE', ONE)
    .slice(before)
    .map((r) => r.url.split('/').pop() as string);
}

/** A create on `api` whose call settles as `outcome` says (in the ledger and the tracker). */
function create(api: BrowserApi, outcome: Promise<SessionCreated>): TrackedCreate {
  return tracker.createSent(api, US, () => outcome);
}

describe('isLostCreate', () => {
  it('a timeout, a connection dropped after sending, a gateway 502 or 504', () => {
    expect(isLostCreate(new TimeoutError('timed out'))).toBe(true);
    expect(isLostCreate(lost())).toBe(true);
    expect(isLostCreate(apiError(502))).toBe(true);
    expect(isLostCreate(apiError(504))).toBe(true);
  });

  it('not a connection refused before sending, nor any other status, nor a plain error', () => {
    expect(isLostCreate(new ConnectionError('refused', { requestSent: false }))).toBe(false);
    for (const status of [400, 429, 500, 503]) expect(isLostCreate(apiError(status))).toBe(false);
    expect(isLostCreate(new Error('timeout'))).toBe(false);
    expect(isLostCreate(undefined)).toBe(false);
  });
});

describe('reconcile', () => {
  it('ends a matching session nobody here knows, looking twice; a late one is found by the second look', async () => {
    const api = service.api();
    const c = create(api, Promise.reject(lost()));
    const early = service.createSession('{"country":"US"}').id;
    let lists = 0;
    let late = '';
    service.on('GET', SESSIONS, (req, res) => {
      // The service finishes the create between the two looks.
      if (++lists === 2) late = service.createSession('{"country":"us"}').id;
      return json(200, { data: service.running() })(req, res);
    });
    const ended = await reconcile(c, { waitForOthers: false, looks: 2 });
    expect(ended).toEqual([early, late]);
    expect(deleted()).toEqual([early, late].sort());
    expect(pauses).toEqual([2000]);
    expect([endedBy(early), endedBy(late)]).toEqual(['reap', 'reap']);
    const lists2 = service.calls('GET', SESSIONS);
    expect(lists2).toHaveLength(2);
    expect(lists2[0]?.url).toContain('status=running');
    expect(openEntries()).toEqual([]);
  });

  it('one look: one list, no pause', async () => {
    const api = service.api();
    const c = create(api, Promise.reject(lost()));
    const one = service.createSession('{"country":"us"}').id;
    expect(await reconcile(c, { waitForOthers: false, looks: 1 })).toEqual([one]);
    expect(pauses).toEqual([]);
    expect(service.calls('GET', SESSIONS)).toHaveLength(1);
  });

  it('never ends a session in the ledger, one a client here was handed, or one with other targeting', async () => {
    const api = service.api();
    const c = create(api, Promise.reject(lost()));
    const inLedger = service.createSession('{"country":"us"}').id;
    recordCreated(inLedger, 'http://elsewhere');
    // What a create of any client here returned is known.
    const handed = async (on: BrowserApi) => {
      const id = service.createSession('{"country":"us"}').id;
      const answered = { id, status: 'running', cdp_url: 'ws://x/y' } as SessionCreated;
      await tracker.createSent(on, US, () => Promise.resolve(answered)).call;
      return id;
    };
    const handedHere = await handed(api);
    const handedOther = await handed(service.api());
    const stranger = service.createSession('{"country":"de"}').id;
    expect(await reconcile(c, { waitForOthers: false, looks: 1 })).toEqual([]);
    expect(deleted()).toEqual([]);
    expect(running().sort()).toEqual([inLedger, handedHere, handedOther, stranger].sort());
  });

  it('waits for the other creates on the wire (any client) first, so their sessions count as known', async () => {
    const api = service.api();
    const mine = create(api, Promise.reject(lost()));
    const answer = deferred<SessionCreated>();
    const otherCreate = create(service.api(), answer.promise);
    const theirs = service.createSession('{"country":"us"}');
    let listed = false;
    const reconciling = reconcile(mine, { waitForOthers: true, looks: 1 }).finally(() => {
      listed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(service.calls('GET', SESSIONS)).toHaveLength(0);
    expect(listed).toBe(false);
    answer.resolve({ id: theirs.id, status: 'running', cdp_url: 'ws://x/y' } as SessionCreated);
    expect(await reconciling).toEqual([]);
    expect(running()).toEqual([theirs.id]);
    expect(otherCreate.intent.intent).not.toBe(mine.intent.intent);
  });

  it('does not wait for itself, nor for others when told not to', async () => {
    const api = service.api();
    const answer = deferred<SessionCreated>();
    const mine = create(api, answer.promise);
    const other = create(service.api(), deferred<SessionCreated>().promise);
    const orphan = service.createSession('{"country":"us"}').id;
    // Its own call and the other's are both still on the wire.
    expect(await reconcile(mine, { waitForOthers: false, looks: 1 })).toEqual([orphan]);
    tracker.refused(other);
    tracker.refused(mine);
  });

  it("lists with its own 15 s timeout, not the client's short default", async () => {
    const api = service.api({ timeout: 100 });
    const c = create(api, Promise.reject(lost()));
    const orphan = service.createSession('{"country":"us"}').id;
    // The list answers well after the client's 100 ms.
    service.on('GET', SESSIONS, async (req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      json(200, { data: service.running() })(req, res);
    });
    expect(await reconcile(c, { waitForOthers: false, looks: 1 })).toEqual([orphan]);
  });

  it("a session created before the request left (past the skew) is not the create's", async () => {
    const api = service.api();
    const old = service.createSession('{"country":"us"}');
    old.created_at = new Date(Date.now() - 3_600_000).toISOString();
    const c = create(api, Promise.reject(lost()));
    expect(await reconcile(c, { waitForOthers: false, looks: 1 })).toEqual([]);
    expect(running()).toEqual([old.id]);
  });

  it('a DELETE that fails is not fatal: the id is still reported, and the ledger says nothing ended', async () => {
    const api = service.api();
    const c = create(api, Promise.reject(lost()));
    const orphan = service.createSession('{"country":"us"}').id;
    service.on('DELETE', ONE, json(500, { error: { code: 'internal', message: 'down' } }));
    expect(await reconcile(c, { waitForOthers: false, looks: 1 })).toEqual([orphan]);
    expect(running()).toEqual([orphan]);
  });
});

describe('reconcileLostCreate', () => {
  it('ends what the create left, settles the intent, and says so in a LaunchError naming the session', async () => {
    const api = service.api();
    const cause = lost();
    const c = create(api, Promise.reject(cause));
    const orphan = service.createSession('{"country":"us"}').id;
    const err = await tracker.lost(c, 'launchRemote', cause);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toBe(
      `launchRemote: the create request got no answer (socket hang up); the session the service created meanwhile (${orphan}) was ended. It was not retried.`,
    );
    expect(err.sessionId).toBe(orphan);
    expect(err.cause).toBe(cause);
    expect(openIntents()).toEqual([]);
    expect(tracker.creates().filter((c) => c.api === api)).toEqual([]);
  });

  it("waits for this process's other creates first, so their sessions are not taken for its own", async () => {
    const api = service.api();
    const cause = lost();
    const mine = create(api, Promise.reject(cause));
    const answer = deferred<SessionCreated>();
    create(service.api(), answer.promise);
    const theirs = service.createSession('{"country":"us"}');
    const reconciling = tracker.lost(mine, 'launchRemote', cause);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(service.calls('GET', SESSIONS)).toHaveLength(0);
    answer.resolve({ id: theirs.id, status: 'running', cdp_url: 'ws://x/y' } as SessionCreated);
    expect((await reconciling).message).toContain('no session was left running');
    expect(running()).toEqual([theirs.id]);
  });

  it('nothing left running: says so, and settles', async () => {
    const api = service.api();
    const cause = new TimeoutError('timed out after 5 ms');
    const c = create(api, Promise.reject(cause));
    const err = await tracker.lost(c, 'connect', cause);
    expect(err.message).toBe(
      'connect: the create request got no answer (timed out after 5 ms); no session was left running. It was not retried.',
    );
    expect(err.sessionId).toBeUndefined();
    expect(openIntents()).toEqual([]);
  });

  it('the list fails: says how to make sure, and leaves the intent open for a later reap', async () => {
    const api = service.api();
    const cause = lost();
    const c = create(api, Promise.reject(cause));
    service.on('GET', SESSIONS, json(500, { error: { code: 'internal', message: 'down' } }));
    const err = await tracker.lost(c, 'launchRemote', cause);
    expect(err.message).toContain(
      'reconciliation could not list the running sessions; run `remote-browser sessions reap` to be sure nothing is left running. It was not retried.',
    );
    expect(err.sessionId).toBeUndefined();
    expect(openIntents().map((i) => i.intent)).toEqual([c.intent.intent]);
    tracker.refused(c);
  });
});

describe('handOffAbandonedCreate', () => {
  const scopeTimedOut = async () => {
    const scope = callScope({ timeout: 1 }, 1, 'launchRemote');
    await eventually(() => scope.signal.aborted, 5000, 'the timeout');
    return scope;
  };

  it('returns at once with the launch error; the session the create returns later is deleted', async () => {
    const api = service.api();
    const answer = deferred<SessionCreated>();
    const c = create(api, answer.promise);
    const scope = await scopeTimedOut();
    const cause = scope.abortError('launchRemote');
    const err = tracker.abandoned(c, scope, 'launchRemote', cause);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toBe(
      'launchRemote: timed out after 1 ms while the service was creating the session; it will be deleted as soon as the service answers (the create was not retried)',
    );
    expect(err.cause).toBe(cause);
    const session = service.createSession('{"country":"us"}');
    let settled = false;
    const cleanups = tracker.settledCleanups(api).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    answer.resolve({ id: session.id, status: 'running', cdp_url: 'ws://x/y' } as SessionCreated);
    await cleanups;
    await tracker.settledCleanups(api);
    expect(deleted()).toEqual([session.id]);
    expect(endedBy(session.id)).toBe('close');
    expect(openEntries()).toEqual([]);
    expect(openIntents()).toEqual([]);
  });

  it("records a returned session that is already gone (404) as 'gone'", async () => {
    const api = service.api();
    const answer = deferred<SessionCreated>();
    const c = create(api, answer.promise);
    const scope = await scopeTimedOut();
    tracker.abandoned(c, scope, 'launchRemote', scope.abortError('launchRemote'));
    service.on('DELETE', ONE, json(404, { error: { code: 'not_found', message: 'gone' } }));
    answer.resolve({ id: 'gone-1', status: 'running', cdp_url: 'ws://x/y' } as SessionCreated);
    await tracker.settledCleanups(api);
    expect(endedBy('gone-1')).toBe('gone');
  });

  it('a create refused outright: settled, nothing listed', async () => {
    const api = service.api();
    const answer = deferred<SessionCreated>();
    const c = create(api, answer.promise);
    const scope = await scopeTimedOut();
    tracker.abandoned(c, scope, 'launchRemote', scope.abortError('launchRemote'));
    answer.reject(apiError(400));
    await tracker.settledCleanups(api);
    expect(service.calls('GET', SESSIONS)).toHaveLength(0);
    expect(openIntents()).toEqual([]);
    expect(tracker.creates().filter((c) => c.api === api)).toEqual([]);
  });

  it('a create whose late answer is lost too: reconciled (two looks), then settled', async () => {
    const api = service.api();
    const answer = deferred<SessionCreated>();
    const c = create(api, answer.promise);
    const scope = await scopeTimedOut();
    tracker.abandoned(c, scope, 'launchRemote', scope.abortError('launchRemote'));
    const orphan = service.createSession('{"country":"us"}').id;
    answer.reject(lost());
    await tracker.settledCleanups(api);
    expect(deleted()).toEqual([orphan]);
    expect(pauses).toEqual([2000]);
    expect(service.calls('GET', SESSIONS)).toHaveLength(2);
    expect(openIntents()).toEqual([]);
  });

  it("reconciles a lost late answer only after this process's other creates answered", async () => {
    const api = service.api();
    const late = deferred<SessionCreated>();
    const c = create(api, late.promise);
    const scope = await scopeTimedOut();
    tracker.abandoned(c, scope, 'launchRemote', scope.abortError('launchRemote'));
    const answer = deferred<SessionCreated>();
    create(service.api(), answer.promise);
    const theirs = service.createSession('{"country":"us"}');
    late.reject(lost());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(service.calls('GET', SESSIONS)).toHaveLength(0);
    answer.resolve({ id: theirs.id, status: 'running', cdp_url: 'ws://x/y' } as SessionCreated);
    await tracker.settledCleanups(api);
    expect(service.calls('GET', SESSIONS)).toHaveLength(2);
    expect(running()).toEqual([theirs.id]);
  });

  it('settledCleanups is per client, and resolves at once with none', async () => {
    const api = service.api();
    const other = service.api();
    const answer = deferred<SessionCreated>();
    const c = create(api, answer.promise);
    const scope = await scopeTimedOut();
    tracker.abandoned(c, scope, 'launchRemote', scope.abortError('launchRemote'));
    // Neither waits for the clean-up still held on `api`.
    await expect(tracker.settledCleanups(other)).resolves.toBeUndefined();
    await expect(tracker.settledCleanups(service.api())).resolves.toBeUndefined();
    answer.reject(apiError(400));
    await expect(tracker.settledCleanups(api)).resolves.toBeUndefined();
    expect(openIntents()).toEqual([]);
  });
});

describe('what the background clean-ups leave for DEBUG=remote-browser:launch', () => {
  /** Runs `work` with launch debug lines captured. */
  async function traced(work: () => Promise<unknown>): Promise<string[]> {
    const lines: string[] = [];
    const restore = setEnv({ DEBUG: 'remote-browser:launch' });
    const previous = setDebugSink((line) => lines.push(line));
    try {
      await work();
    } finally {
      setDebugSink(previous);
      restore();
    }
    return lines;
  }

  it('names the session a hand-off deletes, the sessions a reconciliation ended, and a failed one', async () => {
    const api = service.api();
    const answer = deferred<SessionCreated>();
    const c = create(api, answer.promise);
    const scope = callScope({ timeout: 1 }, 1, 'launchRemote');
    await eventually(() => scope.signal.aborted, 5000, 'the timeout');
    const handOff = await traced(async () => {
      tracker.abandoned(c, scope, 'launchRemote', scope.abortError('launchRemote'));
      answer.resolve({ id: 'late-1', status: 'running', cdp_url: 'ws://x/y' } as SessionCreated);
      await tracker.settledCleanups(api);
    });
    expect(handOff).toContain(
      'remote-browser:launch deleting session late-1: its launch gave up while it was being created',
    );

    const lostOne = create(api, Promise.reject(lost()));
    const orphan = service.createSession('{"country":"us"}').id;
    const reconciled = await traced(() => reconcile(lostOne, { waitForOthers: false, looks: 1 }));
    expect(reconciled).toEqual([`remote-browser:launch reconciled: ended ${orphan}`]);
    // Nothing ended: nothing said.
    expect(await traced(() => reconcile(lostOne, { waitForOthers: false, looks: 1 }))).toEqual([]);

    service.on('GET', SESSIONS, json(500, { error: { code: 'internal', message: 'down' } }));
    const failed = await traced(() => tracker.lost(lostOne, 'launchRemote', lost()));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/^remote-browser:launch reconciliation failed: GET .*→ 500/);
    tracker.refused(lostOne);
  });

  it('names every session it ended, comma-separated, in the trace and in the launch error', async () => {
    const api = service.api();
    const cause = lost();
    const c = create(api, Promise.reject(cause));
    const a = service.createSession('{"country":"us"}').id;
    const b = service.createSession('{"country":"us"}').id;
    let err: Error | undefined;
    const trace = await traced(async () => {
      err = await tracker.lost(c, 'launchRemote', cause);
    });
    expect(trace).toEqual([`remote-browser:launch reconciled: ended ${a}, ${b}`]);
    expect(err?.message).toContain(
      `the session the service created meanwhile (${a}, ${b}) was ended`,
    );
  });
});

describe('settledCleanups with several hand-offs on one client', () => {
  it('waits for every one of them, not only the last', async () => {
    const api = service.api();
    const first = deferred<SessionCreated>();
    const second = deferred<SessionCreated>();
    const scope = callScope({ timeout: 1 }, 1, 'launchRemote');
    await eventually(() => scope.signal.aborted, 5000, 'the timeout');
    tracker.abandoned(create(api, first.promise), scope, 'x', scope.abortError('x'));
    tracker.abandoned(create(api, second.promise), scope, 'x', scope.abortError('x'));
    second.reject(apiError(400));
    let settled = false;
    const waiting = tracker.settledCleanups(api).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    first.reject(apiError(400));
    await waiting;
    expect(openIntents()).toEqual([]);
  });
});

let releaseHeld: () => void = () => {};

// Before the service closes: no create left on the wire, where the next test's tracker.endEverything()
// (which walks every client's registry) would find it.
afterEach(async () => {
  releaseHeld();
  for (const create of tracker.creates()) {
    await create.call.catch(() => undefined);
    tracker.refused(create);
  }
});

/** A create on the wire, sent as create-session.ts sends it. */
function send(api: BrowserApi) {
  return tracker.createSent(api, BODY, () => api.sessions.create(BODY));
}

/** The service holds every create's answer until the test ends (after making the session, if `make`). */
function holdCreates(make: boolean): void {
  const held = new Promise<void>((resolve) => {
    releaseHeld = resolve;
  });
  service.on('POST', SESSIONS, async (req, res) => {
    if (make) service.createSession(req.body);
    await held;
    res.socket?.destroy();
  });
}

describe('tracker.endEverything() with a create still on the wire', () => {
  it('deletes the session of a create that answers within the grace period, and closes its ledger entry', async () => {
    const api = service.api();
    const create = send(api);
    await tracker.endEverything(10_000);
    const { id } = await create.call;
    expect(service.calls('DELETE', ONE).map((r) => r.url.split('/').pop())).toEqual([id]);
    expect(service.sessions.get(id)?.status).toBe('ended');
    expect(endedBy(id)).toBe('close');
    expect(openEntries().map((e) => e.id)).not.toContain(id);
    expect(openIntents()).toEqual([]);
  });

  it("records a created session that is already gone (404) as 'gone', and one whose DELETE failed as still open", async () => {
    const api = service.api();
    service.on('DELETE', ONE, json(404, { error: { code: 'not_found', message: 'gone' } }));
    const gone = send(api);
    await tracker.endEverything(10_000);
    const goneId = (await gone.call).id;
    expect(endedBy(goneId)).toBe('gone');

    service.on('DELETE', ONE, json(500, { error: { code: 'internal', message: 'down' } }));
    const failed = send(api);
    await expect(tracker.endEverything(10_000)).resolves.toBeUndefined();
    const failedId = (await failed.call).id;
    expect(endedBy(failedId)).toBeUndefined();
    expect(openEntries().map((e) => e.id)).toContain(failedId);
  });

  it('settles a create the service refused outright (400) without listing sessions', async () => {
    const api = service.api();
    service.on('POST', SESSIONS, json(400, { error: { code: 'invalid', message: 'bad country' } }));
    const create = send(api);
    await tracker.endEverything(10_000);
    expect(service.calls('GET', SESSIONS)).toHaveLength(0);
    expect(openIntents()).toEqual([]);
    expect(tracker.creates().filter((c) => c.api === api)).not.toContain(create);
  });

  it('reconciles a lost create (502 after the service made the session): the session is ended and the intent settled', async () => {
    const api = service.api();
    service.on('POST', SESSIONS, (req, res) => {
      service.createSession(req.body);
      return json(502, { error: { code: 'bad_gateway', message: 'upstream' } })(req, res);
    });
    send(api);
    await tracker.endEverything(10_000);
    expect(service.calls('GET', SESSIONS)).toHaveLength(1);
    expect(service.running()).toEqual([]);
    expect(openIntents()).toEqual([]);
  });

  it('settles a lost create (502) that left nothing running: its answer came, nothing is still coming', async () => {
    const api = service.api();
    service.on(
      'POST',
      SESSIONS,
      json(502, { error: { code: 'bad_gateway', message: 'upstream' } }),
    );
    send(api);
    await tracker.endEverything(10_000);
    expect(service.calls('GET', SESSIONS)).toHaveLength(1);
    expect(openIntents()).toEqual([]);
  });

  it('ends the session of a create still pending after the grace period, found by its targeting, and settles it', async () => {
    const api = service.api();
    holdCreates(true);
    const create = send(api);
    // Another process's session with other targeting is left alone.
    const other = service.createSession(JSON.stringify({ country: 'de' }));
    await eventually(() => service.running().length === 2, 10_000, 'the create to arrive');
    await tracker.endEverything(50);
    expect(service.running()).toEqual([other]);
    expect(openIntents()).toEqual([]);
    expect(tracker.creates().filter((c) => c.api === api)).not.toContain(create);
  });

  it('leaves two pending creates that found nothing open in the ledger for reap, without waiting on each other', async () => {
    const api = service.api();
    holdCreates(false);
    const a = send(api);
    const b = send(api);
    await eventually(() => service.calls('POST', SESSIONS).length === 2, 10_000, 'both creates');
    await tracker.endEverything(50);
    expect(service.calls('GET', SESSIONS)).toHaveLength(2);
    expect(
      openIntents()
        .map((i) => i.intent)
        .sort(),
    ).toEqual([a.intent.intent, b.intent.intent].sort());
  });
});

describe('tracker.endEverything() and leases', () => {
  it('deletes every open lease, also one that a create answering meanwhile opens', async () => {
    const api = service.api();
    const open = new SessionLease(api, service.createSession('').id);
    const create = send(api);
    // What open-session.ts does with a create's answer: a lease for the new session.
    const late = create.call.then(({ id }) => new SessionLease(api, id));
    await tracker.endEverything(10_000);
    const lease = await late;
    expect(open.active).toBe(false);
    expect(lease.active).toBe(false);
    expect(service.running()).toEqual([]);
  });
});

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
    l.drop();
    l.keepFor(50);
    expect(tracker.holds(l)).toBe(true);
    expect(openEntries().map((e) => e.id)).toContain(l.id);
    await eventually(() => !tracker.holds(l), 5000, 'the kept window');
    expect(service.running()).toEqual([]);
    expect(ledgerOf(l.id)).toEqual(['created', 'deleting', 'ended close']);
  });

  it('kept, then released before its window: one DELETE, the timer does nothing more', async () => {
    const api = service.api();
    const l = new SessionLease(api, service.createSession('').id);
    l.drop();
    l.keepFor(30);
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
