/**
 * A create whose answer was lost (lost-create.ts), and one its launch stopped waiting for
 * (abandoned-create.ts), on their own: which errors count as lost, which running sessions the
 * reconciliation ends (and which it must never touch), what the launch's error says, and when
 * the intent is settled. Against a scripted service on a real loopback server. The 2 s pause
 * before the second look is skipped (and counted); every other sleep is real.
 */
import { readFileSync, rmSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { BrowserApi, SessionCreated } from '../../src/browser-api/index.js';
import { callScope } from '../../src/http/call-options.js';
import { setDebugSink } from '../../src/http/debug.js';
import { ApiError, ConnectionError, TimeoutError } from '../../src/http/errors.js';
import { LaunchError } from '../../src/launch/errors.js';
import { ledgerPath, openEntries, openIntents, recordCreated } from '../../src/launch/ledger.js';
import { isLostCreate, type TrackedCreate, tracker } from '../../src/launch/tracker.js';
import { deferred } from '../helpers/deferred.js';
import { setEnv } from '../helpers/env.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { useFakeService } from './fake-service.js';

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

const service = useFakeService('rb-lost-');
const SESSIONS = /^\/sessions$/;
const ONE = /^\/sessions\/[^/]+$/;
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
