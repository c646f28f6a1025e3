/**
 * The take-one-kept-session rule of the drop-ins (reconnect-window.ts): a session kept after a
 * drop under a reuse key goes to one later launch with that key, never to another key, never
 * after its window; and the key says when two launches are interchangeable.
 */
import { describe, expect, it, vi } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import type { SessionEnd } from '../../src/launch/end-reason.js';
import {
  type Dropped,
  handleDrop,
  isKept,
  keptAfterClose,
  REATTACH_ATTEMPTS,
  reattachTries,
  reuseKeyOf,
  takeKept,
  takeKeptFor,
} from '../../src/launch/reconnect-window.js';
import { RemoteSession as SessionLease } from '../../src/launch/remote-session.js';
import { withEnv } from '../helpers/env.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { gate, heldUntil, useFakeService } from './fake-service.js';

const service = useFakeService('rb-reconnect-unit-');
const ONE = /^\/sessions\/[^/]+$/;

/** `GET /sessions/{id}` as the service answers it: the session's own status. */
function answerLookups(): void {
  service.on('GET', ONE, (req, res) => {
    const id = decodeURIComponent(/\/sessions\/([^/?]+)/.exec(req.url)?.[1] ?? '');
    const session = service.sessions.get(id);
    if (!session)
      return json(404, { error: { code: 'not_found', message: 'no such session' } })(req, res);
    const ended_at = session.status === 'ended' ? new Date().toISOString() : null;
    return json(200, { data: { ...session, ended_at } })(req, res);
  });
}

/** A running session whose connection just dropped, as a launch hands it to handleDrop(). */
function dropOf(api: BrowserApi, reuseKey: string | undefined, windowMs = 60_000) {
  const { id } = service.createSession('');
  const session = new SessionLease(api, id);
  session.drop();
  // What the session says (its end reason), in order.
  const reports = vi.spyOn(session, 'report');
  const dropped: Dropped = {
    session,
    windowMs,
    limits: {},
    activity: { sinceLeaseMs: 0, launched: true, atMs: Date.now() },
    end: (event) => session.release(event),
    handOff: () => session.handOff(),
    reuseKey,
  };
  return {
    id,
    dropped,
    get reports(): SessionEnd[] {
      return reports.mock.calls.map(([end]) => end);
    },
  };
}

describe('takeKeptFor: a kept drop-in session goes to one launch', () => {
  it('gives a session kept under a key to exactly one of two launches asking at once with that key', async () => {
    answerLookups();
    const api = service.api();
    const drop = dropOf(api, 'key-a');
    await handleDrop(drop.dropped);
    expect(isKept(drop.id)).toBe(true);

    const [first, second] = await Promise.all([takeKeptFor('key-a'), takeKeptFor('key-a')]);
    const taken = [first, second].filter((t) => t !== undefined);
    expect(taken.map((t) => t.id)).toEqual([drop.id]);
    expect(isKept(drop.id)).toBe(false);
    expect(await takeKeptFor('key-a')).toBeUndefined();
    await taken[0]?.end();
  });

  it('does not give it to a launch with another key (other options or account): it stays kept', async () => {
    answerLookups();
    const drop = dropOf(service.api(), 'key-a');
    await handleDrop(drop.dropped);
    expect(await takeKeptFor('key-b')).toBeUndefined();
    expect(isKept(drop.id)).toBe(true);
    expect(drop.reports.map((r) => r.reason)).toEqual(['connection_lost']);
  });

  it('does not give it once its window has passed: the window deleted it and said so', async () => {
    answerLookups();
    const drop = dropOf(service.api(), 'key-a', 100);
    await handleDrop(drop.dropped);
    await eventually(
      () => service.sessions.get(drop.id)?.status === 'ended',
      5_000,
      'the window to delete it',
    );
    expect(await takeKeptFor('key-a')).toBeUndefined();
    await eventually(() => drop.reports.length === 2, 5_000, 'the window line');
    expect(drop.reports.map((r) => r.reason)).toEqual(['connection_lost', 'window_passed']);
  });

  it('waits for a drop of its key still being looked up, then takes that session', async () => {
    const lookup = gate();
    service.on(
      'GET',
      ONE,
      heldUntil(lookup.opened, (req, res) => {
        const id = decodeURIComponent(/\/sessions\/([^/?]+)/.exec(req.url)?.[1] ?? '');
        const session = service.sessions.get(id);
        return json(200, { data: { ...session, ended_at: null } })(req, res);
      }),
    );
    const drop = dropOf(service.api(), 'key-a');
    const deciding = handleDrop(drop.dropped);
    let settled = false;
    const taking = takeKeptFor('key-a').then((taken) => {
      settled = true;
      return taken;
    });
    await eventually(() => service.calls('GET', ONE).length === 1, 5_000, 'the lookup');
    expect(settled).toBe(false);
    lookup.open();
    await deciding;
    const taken = await taking;
    expect(taken?.id).toBe(drop.id);
    await taken?.end();
  });

  it('leaves a session kept without a key (launchRemote) to connectRemote(id) alone', async () => {
    answerLookups();
    const drop = dropOf(service.api(), undefined);
    await handleDrop(drop.dropped);
    expect(await takeKeptFor('key-a')).toBeUndefined();
    const taken = takeKept(drop.id);
    expect(taken?.id).toBe(drop.id);
    await taken?.end();
  });
});

describe('keptAfterClose: a kept session whose drop-in browser was closed', () => {
  it('is ended when the event loop runs dry (no launch can take it), while one whose browser is still open stays kept', async () => {
    answerLookups();
    const api = service.api();
    const closed = dropOf(api, 'key-a');
    const open = dropOf(api, 'key-a');
    await Promise.all([handleDrop(closed.dropped), handleDrop(open.dropped)]);
    keptAfterClose(closed.id);

    process.emit('beforeExit', 0);
    await eventually(
      () => service.sessions.get(closed.id)?.status === 'ended',
      5_000,
      'the closed one to be deleted',
    );
    expect(isKept(closed.id)).toBe(false);
    expect(isKept(open.id)).toBe(true);
    expect(service.sessions.get(open.id)?.status).toBe('running');
  });

  it('once taken by a launch, is not ended when the event loop runs dry', async () => {
    answerLookups();
    const drop = dropOf(service.api(), 'key-a');
    await handleDrop(drop.dropped);
    keptAfterClose(drop.id);
    const taken = await takeKeptFor('key-a');
    expect(taken?.id).toBe(drop.id);
    process.emit('beforeExit', 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(service.calls('DELETE', ONE)).toHaveLength(0);
    await taken?.end();
  });
});

describe('reuseKeyOf: when two drop-in launches are interchangeable', () => {
  const account = { baseUrl: 'http://127.0.0.1:9', token: 'tok-one', proxyPassword: 'pw-one' };

  it('gives the same account and session options the same key, in any order', () => {
    const a = reuseKeyOf({ ...account, country: 'us', extraStealth: true, profile: 'shop' });
    const b = reuseKeyOf({ profile: 'shop', extraStealth: true, country: 'us', ...account });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
  });

  it('ignores options of the connection only (timeouts, exposeNetwork, preflight)', () => {
    const base = reuseKeyOf({ ...account, country: 'us' });
    expect(
      reuseKeyOf({
        ...account,
        country: 'us',
        timeout: 5_000,
        exposeNetwork: '',
        preflight: false,
        reconnectWindowMs: 1_000,
      }),
    ).toBe(base);
  });

  it('gives another targeting, profile, recording, token or proxy password another key', () => {
    const base = reuseKeyOf({ ...account, country: 'us' });
    const others = [
      reuseKeyOf({ ...account, country: 'de' }),
      reuseKeyOf({ ...account, country: 'us', city: 'new_york' }),
      reuseKeyOf({ ...account, country: 'us', profile: 'shop' }),
      reuseKeyOf({ ...account, country: 'us', recording: { dir: '/tmp/rec' } }),
      reuseKeyOf({ ...account, country: 'us', token: 'tok-two' }),
      reuseKeyOf({ ...account, country: 'us', proxyPassword: 'pw-two' }),
      reuseKeyOf({ ...account, country: 'us', keepSession: true }),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
  });

  it('keys a caller-given client by the client itself', () => {
    const one = service.api();
    const two = service.api();
    expect(reuseKeyOf({ api: one })).toBe(reuseKeyOf({ api: one }));
    expect(reuseKeyOf({ api: two })).not.toBe(reuseKeyOf({ api: one }));
  });

  it('has no key when the account cannot be resolved (the launch fails with its own error)', async () => {
    await withEnv({ REMOTE_BROWSER_TOKEN: undefined, REMOTE_BROWSER_URL: undefined }, () => {
      expect(reuseKeyOf({ country: 'us' })).toBeUndefined();
    });
  });
});

describe("reattachTries: the pools' and the drop-ins' one re-attach loop", () => {
  it('tries again after a try that was cut, and hands out what the next try connected', async () => {
    const tries: number[] = [];
    const browser = await reattachTries(async () => {
      tries.push(tries.length + 1);
      if (tries.length < 2) throw new Error('socket hang up');
      return 'browser';
    });
    expect(browser).toBe('browser');
    expect(tries).toEqual([1, 2]);
  });

  it('stops at a try that finds nothing kept', async () => {
    const attempt = vi.fn(async () => undefined);
    await expect(reattachTries(attempt)).resolves.toBeUndefined();
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it(`gives up after ${REATTACH_ATTEMPTS} cut tries: the caller launches or warms instead`, async () => {
    const attempt = vi.fn(async (): Promise<string> => {
      throw new Error('socket hang up');
    });
    await expect(reattachTries(attempt)).resolves.toBeUndefined();
    expect(attempt).toHaveBeenCalledTimes(REATTACH_ATTEMPTS);
  });
});
