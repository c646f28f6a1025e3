/**
 * `createSession()` (create-session.ts) on its own: each outcome of `POST /sessions` has one
 * home (the session and its slot; an error as the service sent it; a 429 waited out and tried
 * again, or not; a lost answer reconciled; a launch that gave up handing the create off), and
 * the account slot is never left taken by a create that made nothing. Against a scripted
 * service on a real loopback server; the reconciliation's 2 s pause is skipped.
 */
import { appendFileSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { accountKeyOf } from '../../src/browser-api/client.js';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { callScope } from '../../src/http/call-options.js';
import { ApiError, RateLimitError } from '../../src/http/errors.js';
import { createSession } from '../../src/launch/create-session.js';
import { LaunchError } from '../../src/launch/errors.js';
import { ledgerPath, openEntries, openIntents } from '../../src/launch/ledger.js';
import { slotsOf as slotsOfAccount, tracker } from '../../src/launch/tracker.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { gate, heldUntil, useFakeService } from './fake-service.js';

/** When set, every sleep returns at once and its length is recorded (a backoff's schedule). */
const instant = vi.hoisted(() => ({ on: false, sleeps: [] as number[] }));
vi.mock('../../src/http/node-builtins.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/http/node-builtins.js')>();
  return {
    ...original,
    sleep: (ms?: number, value?: unknown, options?: unknown) => {
      if (instant.on) {
        instant.sleeps.push(ms ?? 0);
        return Promise.resolve(value);
      }
      // The reconciliation's pause before its second look: not worth 2 s of every run.
      if (ms === 2000) return Promise.resolve(value);
      return original.sleep(ms, value, options as never);
    },
  };
});

const service = useFakeService('rb-create-');
const SESSIONS = /^\/sessions$/;
const ONE = /^\/sessions\/[^/]+$/;
const BODY = { country: 'us' };

beforeEach(() => rmSync(ledgerPath(), { force: true }));
afterEach(() => {
  instant.on = false;
  instant.sleeps.length = 0;
  vi.restoreAllMocks();
});

const scope = (timeout = 30_000, signal?: AbortSignal) =>
  callScope({ timeout, ...(signal ? { signal } : {}) }, timeout, 'launchRemote');
const slotsOf = (api: BrowserApi) => slotsOfAccount(accountKeyOf(api));
const posts = () => service.calls('POST', SESSIONS).length;
/** The account's limit (3, all in use by others); `retryAfter` in s, or none. */
const rateLimited = (retryAfter: number | undefined) =>
  json(
    429,
    {
      error: { code: 'rate_limited', message: 'concurrent session limit reached' },
      limit_type: 'sessions',
      current_usage: 3,
      limit: 3,
      ...(retryAfter === undefined ? {} : { retry_after: retryAfter }),
    },
    retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
  );
describe('createSession', () => {
  it('returns the session with its slot held until released; the intent is settled', async () => {
    const api = service.api();
    const { created, slot } = await createSession(api, BODY, {
      scope: scope(),
      waitForSlot: true,
      what: 'launchRemote',
    });
    expect(service.sessions.get(created.id)?.config).toMatchObject(BODY);
    expect(slotsOf(api).held).toBe(1);
    expect(openIntents()).toEqual([]);
    expect(openEntries().map((e) => e.id)).toEqual([created.id]);
    slot.release();
    expect(slotsOf(api).held).toBe(0);
  });

  it("gives the create its own long timeout, not the client's short default", async () => {
    const api = service.api({ timeout: 100 });
    const hold = gate();
    service.on(
      'POST',
      SESSIONS,
      heldUntil(hold.opened, (req, res) =>
        json(200, {
          data: {
            id: service.createSession(req.body).id,
            status: 'running',
            cdp_url: 'ws://x/y',
          },
        })(req, res),
      ),
    );
    const creating = createSession(api, BODY, {
      scope: scope(),
      waitForSlot: true,
      what: 'launchRemote',
    });
    await eventually(() => posts() === 1, 5000, 'the create');
    // Well past the client's 100 ms.
    await new Promise((resolve) => setTimeout(resolve, 400));
    hold.open();
    const { created, slot } = await creating;
    slot.release();
    expect(service.running().map((s) => s.id)).toEqual([created.id]);
  });

  it('an error the service sent is thrown as it is; the slot is free and the intent settled, nothing listed', async () => {
    const api = service.api();
    service.on('POST', SESSIONS, json(400, { error: { code: 'invalid', message: 'bad country' } }));
    const err = await createSession(api, BODY, {
      scope: scope(),
      waitForSlot: true,
      what: 'launchRemote',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect(slotsOf(api).held).toBe(0);
    expect(openIntents()).toEqual([]);
    expect(tracker.creates().filter((c) => c.api === api)).toEqual([]);
    expect(service.calls('GET', SESSIONS)).toHaveLength(0);
  });

  it('a 429 is waited out and the create tried again when the launch may wait', async () => {
    const api = service.api();
    let refused = 0;
    service.on('POST', SESSIONS, (req, res) => {
      if (refused++ === 0) return rateLimited(0)(req, res);
      return json(200, {
        data: { id: service.createSession(req.body).id, status: 'running', cdp_url: 'ws://x/y' },
      })(req, res);
    });
    const { created, slot } = await createSession(api, BODY, {
      scope: scope(),
      waitForSlot: true,
      what: 'launchRemote',
    });
    expect(posts()).toBe(2);
    expect(slotsOf(api).limit).toBe(3);
    expect(slotsOf(api).held).toBe(1);
    expect(openIntents()).toEqual([]);
    slot.release();
    expect(service.running().map((s) => s.id)).toEqual([created.id]);
  });

  it('429s without a Retry-After back off longer after each attempt', async () => {
    const api = service.api();
    let refused = 0;
    service.on('POST', SESSIONS, (req, res) => {
      if (refused++ < 3) return rateLimited(undefined)(req, res);
      return json(200, {
        data: { id: service.createSession(req.body).id, status: 'running', cdp_url: 'ws://x/y' },
      })(req, res);
    });
    // The shortest wait of each step (equal jitter): 1 s, 2 s, 4 s ceilings, halved.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    instant.on = true;
    const { slot } = await createSession(api, BODY, {
      scope: scope(),
      waitForSlot: true,
      what: 'launchRemote',
    });
    slot.release();
    expect(posts()).toBe(4);
    expect(instant.sleeps).toEqual([500, 1000, 2000]);
  });

  it('a 429 is thrown at once when the launch may not wait (a pre-warm)', async () => {
    const api = service.api();
    service.on('POST', SESSIONS, rateLimited(0));
    const err = await createSession(api, BODY, {
      scope: scope(),
      waitForSlot: false,
      what: 'launchRemote',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(posts()).toBe(1);
    expect(slotsOf(api).held).toBe(0);
    expect(openIntents()).toEqual([]);
  });

  it('a 429 that outlasts the launch ends it with the stayed-full error', async () => {
    const api = service.api();
    service.on('POST', SESSIONS, rateLimited(600));
    const err = await createSession(api, BODY, {
      scope: scope(2000),
      waitForSlot: true,
      what: 'launchRemote',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect((err as Error).message).toContain('stayed full');
    expect(posts()).toBe(1);
    expect(slotsOf(api).held).toBe(0);
  });

  it('a lost answer is reconciled, never repeated: the session made meanwhile is ended', async () => {
    const api = service.api();
    let made = '';
    service.on('POST', SESSIONS, (req, res) => {
      made = service.createSession(req.body).id;
      return json(502, { error: { code: 'bad_gateway', message: 'upstream' } })(req, res);
    });
    const err = await createSession(api, BODY, {
      scope: scope(),
      waitForSlot: true,
      what: 'launchRemote',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect((err as LaunchError).sessionId).toBe(made);
    expect((err as Error).message).toMatch(/^launchRemote: the create request got no answer/);
    expect(posts()).toBe(1);
    expect(service.running()).toEqual([]);
    expect(slotsOf(api).held).toBe(0);
    expect(openIntents()).toEqual([]);
  });

  it("a lost answer never ends a session another live process's create may have made: its own, once that one is recorded", async () => {
    const api = service.api();
    let ours = '';
    let theirs = '';
    // Another test process on this machine: its create of the same targeting is on the wire.
    const other = { intent: 'other-process', origin: service.origin, pid: process.ppid };
    service.on('POST', SESSIONS, (req, res) => {
      theirs = service.createSession(req.body).id;
      appendFileSync(
        ledgerPath(),
        `${JSON.stringify({ op: 'creating', ...other, at: new Date().toISOString(), targeting: BODY })}\n`,
      );
      ours = service.createSession(req.body).id;
      return json(502, { error: { code: 'bad_gateway', message: 'upstream' } })(req, res);
    });
    let looks = 0;
    service.on('GET', SESSIONS, (req, res) => {
      // The other process records its session between this process's two looks.
      if (++looks === 2) {
        const at = new Date().toISOString();
        appendFileSync(
          ledgerPath(),
          `${JSON.stringify({ op: 'create-settled', intent: other.intent, at })}\n${JSON.stringify({ op: 'created', id: theirs, origin: service.origin, pid: other.pid, createdAt: at })}\n`,
        );
      }
      return json(200, { data: service.running() })(req, res);
    });
    const err = await createSession(api, BODY, {
      scope: scope(),
      waitForSlot: true,
      what: 'launchRemote',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(looks).toBe(2);
    // The first look took neither (either may be the other's); the second ended only ours.
    expect(service.running().map((s) => s.id)).toEqual([theirs]);
    expect(service.calls('DELETE', ONE).map((r) => r.url.split('/').pop())).toEqual([ours]);
    expect(openIntents()).toEqual([]);
  });

  /**
   * The service makes the session and answers 502 (a lost create), while another live process
   * on this machine has its create of the same targeting to `origin` on the wire.
   */
  const lostBesideAnotherCreate = async (origin: string) => {
    const api = service.api();
    service.on('POST', SESSIONS, (req, res) => {
      const other = { op: 'creating', intent: 'other-process', origin, pid: process.ppid };
      appendFileSync(
        ledgerPath(),
        `${JSON.stringify({ ...other, at: new Date().toISOString(), targeting: { ...BODY } })}\n`,
      );
      service.createSession(req.body);
      return json(502, { error: { code: 'bad_gateway', message: 'upstream' } })(req, res);
    });
    const what = 'launchRemote';
    const error = await createSession(api, BODY, { scope: scope(), waitForSlot: true, what }).then(
      () => expect.unreachable('the create was lost'),
      (e: unknown) => e as Error,
    );
    return { api, error };
  };

  it("a session still contested after both looks is left, and the create's intent stays open for the reap", async () => {
    const { api, error } = await lostBesideAnotherCreate(service.origin);
    expect(service.calls('DELETE', ONE)).toEqual([]);
    expect(service.running()).toHaveLength(1);
    // The error says a session was left, and to whom: never "no session was left running".
    expect(error.message).toContain(
      "a running session another process's create to this service may have made was left to that process",
    );
    expect(error.message).not.toContain('no session was left running');
    expect(
      openIntents()
        .map((i) => i.pid)
        .sort(),
    ).toEqual([process.pid, process.ppid].sort());
    for (const c of tracker.creates().filter((c) => c.api === api)) tracker.refused(c);
  });

  it("a live process's create to another service contests nothing here: the lost create's session is ended", async () => {
    // A second suite on this machine, on its own emulator, creating alike.
    const { error } = await lostBesideAnotherCreate('http://127.0.0.1:9');
    expect(error.message).toMatch(/was ended\. It was not retried/);
    expect(service.calls('DELETE', ONE)).toHaveLength(1);
    expect(service.running()).toEqual([]);
    expect(openIntents().map((i) => i.intent)).toEqual(['other-process']);
  });

  it('a lost answer that cannot be reconciled leaves the intent open for a later reap', async () => {
    const api = service.api();
    service.on('POST', SESSIONS, (req, res) => {
      service.createSession(req.body);
      return json(502, { error: { code: 'bad_gateway', message: 'upstream' } })(req, res);
    });
    service.on('GET', SESSIONS, json(500, { error: { code: 'internal', message: 'down' } }));
    const err = await createSession(api, BODY, {
      scope: scope(),
      waitForSlot: true,
      what: 'launchRemote',
    }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('reconciliation could not list the running sessions');
    expect(openIntents()).toHaveLength(1);
    expect(slotsOf(api).held).toBe(0);
    for (const c of tracker.creates().filter((c) => c.api === api)) tracker.refused(c);
  });

  it('a launch that gives up mid-create hands the create off: the late session is deleted', async () => {
    const api = service.api();
    const hold = gate();
    let made = '';
    service.on(
      'POST',
      SESSIONS,
      heldUntil(hold.opened, (req, res) => {
        made = service.createSession(req.body).id;
        return json(200, { data: { id: made, status: 'running', cdp_url: 'ws://x/y' } })(req, res);
      }),
    );
    const controller = new AbortController();
    const creating = createSession(api, BODY, {
      scope: scope(30_000, controller.signal),
      waitForSlot: true,
      what: 'launchRemote',
    }).catch((e: unknown) => e);
    await eventually(() => posts() === 1, 5000, 'the create');
    controller.abort();
    const err = await creating;
    expect(err).toBeInstanceOf(LaunchError);
    expect((err as Error).message).toMatch(
      /^launchRemote: aborted.* while the service was creating the session; it will be deleted/,
    );
    expect(slotsOf(api).held).toBe(0);
    hold.open();
    await tracker.settledCleanups(api);
    expect(service.calls('DELETE', ONE).map((r) => r.url.split('/').pop())).toEqual([made]);
    expect(service.running()).toEqual([]);
    expect(openIntents()).toEqual([]);
  });

  it('past the learned limit, a launch that may wait queues for a slot; a pre-warm does not', async () => {
    const api = service.api();
    const slots = slotsOf(api);
    slots.learn(1, 1);
    const mine = slots.take();
    // Every session counted is ours: only one of ours ending frees a slot.
    slots.learn(1, 1);
    const warm = await createSession(api, BODY, {
      scope: scope(),
      waitForSlot: false,
      what: 'pool',
    });
    expect(posts()).toBe(1);
    warm.slot.release();
    const queued = createSession(api, BODY, { scope: scope(), waitForSlot: true, what: 'x' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(posts()).toBe(1);
    mine.release();
    const { slot } = await queued;
    expect(posts()).toBe(2);
    slot.release();
  });
});
