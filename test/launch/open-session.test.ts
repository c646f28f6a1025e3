/**
 * openSession()/adoptSession() and the adapter's half of a lease, path by path (issue 18's
 * mutation pass), against a scripted service on a loopback server (fake-service.ts): what is
 * sent (profile, preflight, proxy password, the launch's remaining time), which client is closed
 * when, and what finish(), abandon() and connectWithin() do and say. No Chromium: the
 * "connect" is the test's own function.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { Recordings } from '../../src/browser-api/resources/recordings.js';
import { adoptSession } from '../../src/launch/attach-session.js';
import { connectWithin } from '../../src/launch/connect-within.js';
import { LaunchError, PreflightError } from '../../src/launch/errors.js';
import { openSession } from '../../src/launch/open-session.js';
import { isKept } from '../../src/launch/reconnect-window.js';
import { PROBE_TIMEOUT_MS } from '../../src/launch/remote-session.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { rejection } from '../helpers/rejection.js';
import { useCapturedWarnings } from '../helpers/warnings.js';
import { type FakeSession, TOKEN, useFakeService } from './fake-service.js';

const service = useFakeService('rb-open-paths-');
const SESSIONS = /^\/sessions$/;
const VALIDATE = /^\/configurations\/validate$/;
const PROFILES = /^\/profiles$/;
const DELETES = /^\/sessions\/[^/]+$/;

afterEach(() => {
  vi.restoreAllMocks();
});

/** Launch options on our own client (built from token and baseUrl, closed by the library). */
const own = (extra: Record<string, unknown> = {}) => ({
  baseUrl: service.origin,
  token: TOKEN,
  proxyPassword: 'own-proxy-password',
  ...extra,
});

const createBodies = () =>
  service.calls('POST', SESSIONS).map((r) => JSON.parse(r.body) as Record<string, unknown>);

describe('openSession: what is sent', () => {
  it('refuses profile and profileId together, before any request', async () => {
    const error = await rejection(
      openSession(own({ profile: 'shop', profileId: 'p-1' }), 'launchRemote'),
    );
    expect(error).toBeInstanceOf(LaunchError);
    expect(error.message).toBe(
      'launchRemote: pass either `profile` (a name) or `profileId`, not both',
    );
    expect(service.server.requests).toHaveLength(0);
  });

  it('a profile id alone is sent as is, without a lookup', async () => {
    const opened = await openSession(own({ profileId: 'p-7', preflight: false }), 'launchRemote');
    expect(createBodies().map((b) => b.profile_id)).toEqual(['p-7']);
    expect(service.calls('GET', PROFILES)).toHaveLength(0);
    await opened.finish();
  });

  it('a profile by name is found or created, and the session is created with its id', async () => {
    const created: unknown[] = [];
    service.on('GET', PROFILES, json(200, { data: [] }));
    service.on('POST', PROFILES, (req, res) => {
      created.push(JSON.parse(req.body));
      json(200, { data: { id: 'p-new', name: 'shop' } })(req, res);
    });
    const byName = await openSession(own({ profile: 'shop', preflight: false }), 'launchRemote');
    const bySpec = await openSession(
      own({ profile: { name: 'cart', storeCache: false, pinIp: true }, preflight: false }),
      'launchRemote',
    );
    expect(created).toEqual([
      { name: 'shop', store_cache: true, pin_ip: false },
      { name: 'cart', store_cache: false, pin_ip: true },
    ]);
    expect(createBodies().map((b) => b.profile_id)).toEqual(['p-new', 'p-new']);
    await Promise.all([byName.finish(), bySpec.finish()]);
  });

  it("the profile lookup runs within the launch's signal and remaining time", async () => {
    const api = service.api();
    const find = vi
      .spyOn(api.profiles, 'findByName')
      .mockResolvedValue({ id: 'p-found', name: 'shop' } as never);
    const opened = await openSession(
      { api, profile: 'shop', preflight: false, timeout: 600_000 },
      'launchRemote',
    );
    const call = find.mock.calls[0]?.[1];
    expect(call?.signal).toBeInstanceOf(AbortSignal);
    expect(call?.timeout).toBeGreaterThan(1);
    expect(call?.timeout).toBeLessThanOrEqual(600_000);
    expect(createBodies().map((b) => b.profile_id)).toEqual(['p-found']);
    await opened.finish();
  });

  it('preflights by default with the launch’s remaining time, and not with preflight: false', async () => {
    const api = service.api();
    const validate = vi.spyOn(api.configurations, 'validate');
    const first = await openSession({ api, country: 'us', timeout: 600_000 }, 'launchRemote');
    expect(validate).toHaveBeenCalledTimes(1);
    const [params, call] = validate.mock.calls[0]!;
    expect(params).toEqual({ country: 'us' });
    expect(call?.signal).toBeInstanceOf(AbortSignal);
    expect(call?.timeout).toBeGreaterThan(1);
    expect(call?.timeout).toBeLessThanOrEqual(600_000);
    const second = await openSession({ api, country: 'de', preflight: false }, 'launchRemote');
    expect(validate).toHaveBeenCalledTimes(1);
    expect(service.calls('POST', VALIDATE)).toHaveLength(1);
    await Promise.all([first.finish(), second.finish()]);
  });

  it('without a timeout, the launch has the 180 s default, not none', async () => {
    const api = service.api();
    const validate = vi.spyOn(api.configurations, 'validate');
    const opened = await openSession({ api, country: 'us' }, 'launchRemote');
    const timeout = validate.mock.calls[0]![1]?.timeout;
    expect(timeout).toBeGreaterThan(1);
    expect(timeout).toBeLessThanOrEqual(180_000);
    await opened.finish();
  });

  it("preflight: 'strict' also checks the location lists", async () => {
    const api = service.api();
    const countries = vi.spyOn(api.locations, 'countries').mockImplementation(
      () =>
        (async function* () {
          yield { code: 'us', name: 'United States' };
        })() as never,
    );
    const opened = await openSession({ api, country: 'us', preflight: 'strict' }, 'launchRemote');
    expect(countries).toHaveBeenCalledTimes(1);
    await opened.finish();
  });

  it("sends the launch's proxy password, else the client's own", async () => {
    const api = service.api();
    const a = await openSession({ api, proxyPassword: 'pp-launch', preflight: false }, 'x');
    const b = await openSession({ api, preflight: false }, 'x');
    expect(createBodies().map((body) => body.proxy_password)).toEqual([
      'pp-launch',
      'lease-unit-proxy-password',
    ]);
    await Promise.all([a.finish(), b.finish()]);
  });

  it('hands out the cdp_url of the created session', async () => {
    const opened = await openSession(own({ preflight: false }), 'launchRemote');
    expect(opened.cdpUrl()).toBe(
      `ws://127.0.0.1:1/devtools/browser/${opened.info.id}?token=cdp-secret`,
    );
    await opened.finish();
  });
});

describe('connected()', () => {
  it("releases the launch timer: the launch's deadline no longer aborts its scope", async () => {
    // Fake timers that follow real time, so the HTTP client's own timers still run; the test
    // then jumps past the launch's deadline instead of waiting for it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    try {
      const connected = await openSession(
        { api: service.api(), preflight: false, timeout: 60_000 },
        'launchRemote',
      );
      const pending = await openSession(
        { api: service.api(), preflight: false, timeout: 60_000 },
        'launchRemote',
      );
      connected.connected();
      vi.advanceTimersByTime(60_001);
      expect(connected.scope.signal.aborted).toBe(false);
      // Without connected() the same deadline ends the launch.
      expect(pending.scope.signal.aborted).toBe(true);
      await Promise.all([connected.finish(), pending.finish()]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('openSession: failures', () => {
  it('a failed launch on our own client closes it; a caller’s client stays open', async () => {
    service.on('POST', VALIDATE, json(200, { data: { valid: false, issues: null } }));
    const closes = vi.spyOn(BrowserApi.prototype, 'close');
    expect(await rejection(openSession(own({ country: 'zz' }), 'launchRemote'))).toBeInstanceOf(
      PreflightError,
    );
    await eventually(() => closes.mock.calls.length === 1, 5000, 'the own client closed');
    const api = service.api();
    expect(await rejection(openSession({ api, country: 'zy' }, 'launchRemote'))).toBeInstanceOf(
      PreflightError,
    );
    // Settled cleanups ran and nothing else was closed.
    await new Promise((r) => setImmediate(r));
    expect(closes).toHaveBeenCalledTimes(1);
    expect(service.calls('POST', SESSIONS)).toHaveLength(0);
  });

  it("the caller's abort during the launch is the launch's abort error, not the request's", async () => {
    const controller = new AbortController();
    service.on('POST', VALIDATE, () => {
      controller.abort(new Error('user stop'));
      // Never answered: the abort ends the wait.
    });
    const error = await rejection(
      openSession({ api: service.api(), country: 'us', signal: controller.signal }, 'launchRemote'),
    );
    expect(error.message).toBe('launchRemote: aborted (user stop)');
    expect(service.calls('POST', SESSIONS)).toHaveLength(0);
  });

  it('a LaunchError thrown while aborting stays itself', async () => {
    const controller = new AbortController();
    const api = service.api();
    vi.spyOn(api.configurations, 'validate').mockImplementation(async () => {
      controller.abort();
      throw new LaunchError('launchRemote: own failure');
    });
    const error = await rejection(
      openSession({ api, country: 'us', signal: controller.signal }, 'launchRemote'),
    );
    expect(error.message).toBe('launchRemote: own failure');
  });
});

describe('adoptSession', () => {
  it('refuses an id that is not a non-empty string, before any request', async () => {
    for (const id of ['', '  ', 7]) {
      const error = await rejection(adoptSession(id as string, own(), 'connectRemote'));
      expect(error).toBeInstanceOf(LaunchError);
      expect(error.message).toBe('connectRemote: sessionId must be a non-empty string');
    }
    expect(service.server.requests).toHaveLength(0);
  });

  it('attaches to a running session within the launch time, and close() deletes it', async () => {
    const session = service.createSession('{"country":"us"}');
    const api = service.api();
    const lookup = vi.spyOn(api.sessions, 'connection');
    const adopted = await adoptSession(session.id, { api, timeout: 600_000 }, 'connectRemote');
    const call = lookup.mock.calls[0]?.[1];
    expect(call?.signal).toBeInstanceOf(AbortSignal);
    expect(call?.timeout).toBeGreaterThan(1);
    expect(call?.timeout).toBeLessThanOrEqual(600_000);
    expect(adopted.info.id).toBe(session.id);
    expect(adopted.info.liveViewUrl).toBe(`http://127.0.0.1:1/live/${session.id}`);
    expect(adopted.cdpUrl()).toMatch(new RegExp(`/devtools/browser/${session.id}\\?`));
    await adopted.finish();
    expect(session.status).toBe('ended');
  });

  it('refuses a session that is not running, naming it, and closes only its own client', async () => {
    const session = service.createSession('');
    session.status = 'ended';
    const closes = vi.spyOn(BrowserApi.prototype, 'close');
    const error = await rejection(adoptSession(session.id, own(), 'connectRemote'));
    expect(error).toBeInstanceOf(LaunchError);
    expect(error.message).toBe(`connectRemote: session ${session.id} is ended, not running`);
    expect((error as LaunchError).sessionId).toBe(session.id);
    expect(closes).toHaveBeenCalledTimes(1);
    await rejection(adoptSession(session.id, { api: service.api() }, 'connectRemote'));
    expect(closes).toHaveBeenCalledTimes(1);
  });

  it('refuses a running session without a cdp_url', async () => {
    // The client's schema already rejects such an answer; a stand-in client gets past it.
    const api = {
      sessions: { connection: async () => ({ id: 's-x', status: 'running', cdp_url: '' }) },
    } as unknown as BrowserApi;
    const error = await rejection(adoptSession('s-x', { api }, 'connectRemote'));
    expect(error.message).toBe('connectRemote: session s-x is running, not running');
  });
});

describe("stillRunning(): the pools' check of a warm session", () => {
  const ONE = /^\/sessions\/[^/]+$/;
  const warnings = useCapturedWarnings();
  /** GET /sessions/{id} answers what the fake service knows, `ended_at` as given. */
  const answerSessions = (endedAt: (s: FakeSession) => string | null) =>
    service.on('GET', ONE, (req, res) => {
      const id = decodeURIComponent(req.url.split('?')[0]!.split('/').pop()!);
      const s = service.sessions.get(id);
      if (!s)
        return json(404, { error: { code: 'not_found', message: 'no such session' } })(req, res);
      json(200, { data: { ...s, ended_at: s.status === 'ended' ? endedAt(s) : null } })(req, res);
    });
  /** 11 minutes after its creation: an idle timeout, by the spec's default of 10. */
  const idleEnd = (s: FakeSession) =>
    new Date(Date.parse(s.created_at) + 11 * 60_000).toISOString();
  const launch = () => openSession({ api: service.api(), preflight: false }, 'launchRemote');
  const sessionOf = (id: string) => service.sessions.get(id)!;

  it('asks the service within the given time; a running session is true, and nothing is said or ended', async () => {
    answerSessions(idleEnd);
    const opened = await launch();
    const retrieve = vi.spyOn(opened.api.sessions, 'retrieve');
    expect(await opened.stillRunning(5000)).toBe(true);
    // The one probe's timeout, bounded by the pool's own wait (5000 ms here) as a signal.
    expect(retrieve).toHaveBeenCalledWith(opened.info.id, {
      timeout: PROBE_TIMEOUT_MS,
      signal: expect.any(AbortSignal),
    });
    expect(warnings).toEqual([]);
    expect(service.calls('DELETE', ONE)).toHaveLength(0);
    await opened.finish();
  });

  it('a session the service ended is false: its reason said once, on endReason too, and this side ended', async () => {
    answerSessions(idleEnd);
    const opened = await launch();
    const id = opened.info.id;
    sessionOf(id).status = 'ended';
    expect(await opened.stillRunning(5000)).toBe(false);
    expect(warnings).toEqual([
      {
        code: 'REMOTE_BROWSER_SESSION_ENDED',
        message: `remote-browser: session ${id} ended by the service: idle timeout (10 min); keep the browser busy, or raise idleTimeoutMinutes (up to the account limit)`,
      },
    ]);
    expect(opened.info.endReason?.reason).toBe('idle_timeout');
    await eventually(() => service.calls('DELETE', ONE).length === 1, 5000, 'the lease released');
    // Asked again: already known, no second lookup and no second line.
    expect(await opened.stillRunning(5000)).toBe(false);
    expect(service.calls('GET', ONE)).toHaveLength(1);
    expect(warnings).toHaveLength(1);
  });

  it("a session the service no longer knows (404) is false, said as 'no longer known'", async () => {
    answerSessions(idleEnd);
    const opened = await launch();
    service.sessions.delete(opened.info.id);
    expect(await opened.stillRunning(5000)).toBe(false);
    expect(opened.info.endReason?.reason).toBe('gone');
    expect(warnings.map((w) => w.code)).toEqual(['REMOTE_BROWSER_SESSION_ENDED']);
  });

  it('a service that does not answer: rejects, says nothing, and leaves the session as it was', async () => {
    service.on('GET', ONE, json(503, { error: { code: 'unavailable', message: 'try later' } }));
    const opened = await launch();
    await expect(opened.stillRunning(5000)).rejects.toThrow();
    expect(warnings).toEqual([]);
    expect(opened.info.endReason).toBeUndefined();
    expect(service.calls('DELETE', ONE)).toHaveLength(0);
    expect(sessionOf(opened.info.id).status).toBe('running');
    await opened.finish();
  });

  it('after close() is false without asking', async () => {
    answerSessions(idleEnd);
    const opened = await launch();
    await opened.finish();
    expect(await opened.stillRunning(5000)).toBe(false);
    expect(service.calls('GET', ONE)).toHaveLength(0);
  });

  it("a session kept after a drop that the service has since ended: false, its reason said, out of the window (no 'window passed' line)", async () => {
    answerSessions(idleEnd);
    const opened = await openSession(
      { api: service.api(), preflight: false, reconnectWindowMs: 60_000 },
      'launchRemote',
    );
    const id = opened.info.id;
    opened.dropped();
    expect(await opened.keptAfterDrop()).toBe(true);
    expect(isKept(id)).toBe(true);
    sessionOf(id).status = 'ended';
    expect(await opened.stillRunning(5000)).toBe(false);
    expect(isKept(id)).toBe(false);
    expect(warnings.map((w) => w.code)).toEqual([
      'REMOTE_BROWSER_CONNECTION_LOST',
      'REMOTE_BROWSER_SESSION_ENDED',
    ]);
    expect(opened.info.endReason?.reason).toBe('idle_timeout');
    expect(await opened.keptAfterDrop()).toBe(false);
  });
});

describe('finish()', () => {
  it('with keepSession, or keep, leaves the session running and says why there is no recording', async () => {
    const closes = vi.spyOn(BrowserApi.prototype, 'close');
    const kept = await openSession(
      own({ keepSession: true, recording: { dir: '/tmp/x' }, preflight: false }),
      'launchRemote',
    );
    expect(kept.recording).toBeUndefined();
    await kept.finish();
    const keptLater = await openSession(
      own({ recording: { dir: '/tmp/x' }, preflight: false }),
      'launchRemote',
    );
    await keptLater.finish(true);
    expect(await rejection(keptLater.recording!)).toEqual(
      new LaunchError('launchRemote: no recording download: the session was kept running'),
    );
    expect(service.running().map((s) => s.id)).toEqual([kept.info.id, keptLater.info.id]);
    expect(service.calls('DELETE', /^\/sessions\//)).toHaveLength(0);
    expect(closes).toHaveBeenCalledTimes(2);
    for (const s of service.running()) s.status = 'ended';
  });

  it('deletes the session, then downloads the recording with its timeout (default 120 s)', async () => {
    const api = service.api();
    const download = vi
      .spyOn(api.sessions.recordings, 'downloadWhenPublished')
      .mockImplementation(async (sessionId) => [{ path: `/rec/${sessionId}.mp4` }] as never);
    const a = await openSession({ api, recording: { dir: '/rec' }, preflight: false }, 'x');
    const b = await openSession(
      { api, recording: { dir: '/rec', timeout: 5000 }, preflight: false },
      'x',
    );
    await Promise.all([a.finish(), b.finish()]);
    expect(service.running()).toEqual([]);
    expect(await a.recording).toEqual({ sessionId: a.info.id, files: [`/rec/${a.info.id}.mp4`] });
    expect(await b.recording).toEqual({ sessionId: b.info.id, files: [`/rec/${b.info.id}.mp4`] });
    expect(download.mock.calls).toEqual([
      [a.info.id, { dir: '/rec' }, { timeout: 120_000 }],
      [b.info.id, { dir: '/rec' }, { timeout: 5000 }],
    ]);
  });

  it("never closes the caller's client: not on keep, delete, download or abandon", async () => {
    const api = service.api();
    const closes = vi.spyOn(api, 'close');
    vi.spyOn(api.sessions.recordings, 'downloadWhenPublished').mockResolvedValue([]);
    const kept = await openSession({ api, preflight: false }, 'x');
    await kept.finish(true);
    const deleted = await openSession({ api, preflight: false }, 'x');
    await deleted.finish();
    const recorded = await openSession({ api, preflight: false, recording: { dir: '/r' } }, 'x');
    await recorded.finish();
    await recorded.recording;
    const abandoned = await openSession({ api, preflight: false }, 'x');
    await abandoned.abandon(new Error('refused'));
    await new Promise((r) => setImmediate(r));
    expect(closes).not.toHaveBeenCalled();
    service.sessions.get(kept.info.id)!.status = 'ended';
  });

  it('closes our own client after the delete, and after the recording download', async () => {
    const closes = vi.spyOn(BrowserApi.prototype, 'close');
    const plain = await openSession(own({ preflight: false }), 'x');
    await plain.finish();
    expect(closes).toHaveBeenCalledTimes(1);
    const download = vi
      .spyOn(Recordings.prototype, 'downloadWhenPublished')
      .mockImplementation(async () => [] as never);
    const recorded = await openSession(own({ preflight: false, recording: { dir: '/r' } }), 'x');
    await recorded.finish();
    await recorded.recording;
    expect(download).toHaveBeenCalledTimes(1);
    await eventually(() => closes.mock.calls.length === 2, 5000, 'the second client closed');
  });
});

describe('abandon()', () => {
  const CDP_SECRET = 'cdp-secret';

  it('deletes the session and says why the connect failed, its first line redacted', async () => {
    const closes = vi.spyOn(BrowserApi.prototype, 'close');
    const opened = await openSession(
      own({ preflight: false, recording: { dir: '/r' } }),
      'launchRemote',
    );
    const cause = new Error(
      `connect ECONNREFUSED ${opened.cdpUrl()}\nCall log:\n  - ws connecting ${opened.cdpUrl()}`,
    );
    cause.name = 'WebSocketError';
    const error = await opened.abandon(cause);
    expect(error).toBeInstanceOf(LaunchError);
    expect(error.sessionId).toBe(opened.info.id);
    expect(error.message).toMatch(
      new RegExp(
        `^launchRemote: could not connect to session ${opened.info.id}: connect ECONNREFUSED \\S+; the session was deleted$`,
      ),
    );
    expect(error.message).not.toContain(CDP_SECRET);
    expect(error.message).not.toContain('Call log');
    const clean = error.cause as Error;
    expect(clean).not.toBe(cause);
    expect(clean.name).toBe('WebSocketError');
    expect(clean.message).toContain('Call log');
    expect(clean.message).not.toContain(CDP_SECRET);
    expect(clean.stack).toMatch(/^WebSocketError: connect ECONNREFUSED/);
    // The original frames are kept (redacted), not replaced by the bare message.
    expect(clean.stack).toMatch(/\n\s+at /);
    expect(clean.stack).not.toContain(CDP_SECRET);
    expect(service.running()).toEqual([]);
    expect(closes).toHaveBeenCalledTimes(1);
    expect(await rejection(opened.recording!)).toEqual(
      new LaunchError('launchRemote: no recording: the connect failed'),
    );
  });

  it('a cause that is not an Error becomes a ConnectError with its text', async () => {
    const opened = await openSession({ api: service.api(), preflight: false }, 'launchRemote');
    const error = await opened.abandon(`closed by ${opened.cdpUrl()}`);
    expect(error.message).toMatch(/: closed by \S+; the session was deleted$/);
    expect(error.message).not.toContain(CDP_SECRET);
    const clean = error.cause as Error;
    expect(clean.name).toBe('ConnectError');
    expect(clean.message).toMatch(/^closed by /);
    expect(clean.stack).toBe(`ConnectError: ${clean.message}`);
    const withoutStack = new Error('plain');
    withoutStack.stack = undefined;
    const second = await openSession({ api: service.api(), preflight: false }, 'launchRemote');
    expect(((await second.abandon(withoutStack)).cause as Error).stack).toBe('Error: plain');
  });

  it('a thrown value whose message is not a string still deletes the session', async () => {
    const opened = await openSession({ api: service.api(), preflight: false }, 'launchRemote');
    const error = await opened.abandon({ message: 42 });
    expect(error.message).toBe(
      `launchRemote: could not connect to session ${opened.info.id}: [object Object]; the session was deleted`,
    );
    expect((error.cause as Error).message).toBe('[object Object]');
    expect(service.running()).toEqual([]);
  });

  it('null or undefined thrown still deletes the session and says what was thrown', async () => {
    for (const thrown of [null, undefined]) {
      const opened = await openSession({ api: service.api(), preflight: false }, 'launchRemote');
      const error = await opened.abandon(thrown);
      expect(error.message).toBe(
        `launchRemote: could not connect to session ${opened.info.id}: ${String(thrown)}; the session was deleted`,
      );
      expect((error.cause as Error).name).toBe('ConnectError');
    }
    expect(service.running()).toEqual([]);
  });

  it('when the delete fails too, says so, and keeps our client for a later close()', async () => {
    const closes = vi.spyOn(BrowserApi.prototype, 'close');
    const opened = await openSession(own({ preflight: false }), 'launchRemote');
    service.on('DELETE', /^\/sessions\//, json(400, { error: { code: 'bad', message: 'stuck' } }));
    const error = await opened.abandon(new Error('refused'));
    expect(error.message).toMatch(
      new RegExp(
        `^launchRemote: could not connect to session ${opened.info.id}: refused; and session ${opened.info.id} is still running: deleting it failed \\(`,
      ),
    );
    expect(closes).toHaveBeenCalledTimes(0);
    service.off('DELETE');
    await opened.finish();
    expect(closes).toHaveBeenCalledTimes(1);
  });

  it('after the launch was aborted, gives the abort as the reason', async () => {
    const controller = new AbortController();
    const opened = await openSession(
      { api: service.api(), preflight: false, signal: controller.signal },
      'launchRemote',
    );
    controller.abort(new Error('user stop'));
    const error = await opened.abandon(new Error('socket hang up'));
    expect(error.message).toBe(
      `launchRemote: could not connect to session ${opened.info.id}: aborted (user stop); the session was deleted`,
    );
  });
});

describe('connectWithin()', () => {
  it('an aborted launch does not start the connect', async () => {
    const controller = new AbortController();
    const opened = await openSession(
      { api: service.api(), preflight: false, signal: controller.signal },
      'launchRemote',
    );
    controller.abort(new Error('user stop'));
    let started = 0;
    const error = await rejection(
      connectWithin(
        opened,
        'launchRemote',
        async () => {
          started++;
          return {};
        },
        async () => {},
      ),
    );
    expect(error.message).toBe('launchRemote: aborted (user stop)');
    expect(started).toBe(0);
    await opened.finish();
  });

  it('hands the connect the remaining time; a connect that ends after the abort is disposed', async () => {
    const controller = new AbortController();
    const opened = await openSession(
      { api: service.api(), preflight: false, signal: controller.signal, timeout: 600_000 },
      'launchRemote',
    );
    let finishConnect!: (value: { late: true }) => void;
    let given = 0;
    const disposed: unknown[] = [];
    const connecting = connectWithin(
      opened,
      'launchRemote',
      (timeoutMs) => {
        given = timeoutMs;
        return new Promise((resolve) => {
          finishConnect = resolve;
        });
      },
      async (late) => {
        disposed.push(late);
      },
    );
    controller.abort(new Error('user stop'));
    expect((await rejection(connecting)).message).toBe('launchRemote: aborted (user stop)');
    expect(given).toBeGreaterThan(1);
    expect(given).toBeLessThanOrEqual(600_000);
    finishConnect({ late: true });
    await eventually(() => disposed.length === 1, 5000, 'the late connection disposed');
    expect(disposed).toEqual([{ late: true }]);
    await opened.finish();
  });
});

describe('connectWithin(): a connect the network dropped', () => {
  const ONE = /^\/sessions\/[^/]+$/;
  /** GET /sessions/{id} answers the fake service's session, its status as given. */
  const answerStatus = (status: () => string) =>
    service.on('GET', ONE, (req, res) => {
      const id = decodeURIComponent(req.url.split('?')[0]!.split('/').pop()!);
      json(200, { data: { ...service.sessions.get(id)!, status: status(), ended_at: null } })(
        req,
        res,
      );
    });
  /** A connect that fails with these messages in turn, then connects. */
  const failing = (...messages: string[]) => {
    let calls = 0;
    const connect = async () => {
      const message = messages[calls++];
      if (message !== undefined) throw new Error(message);
      return { connected: calls };
    };
    return { connect, calls: () => calls };
  };

  it('is tried again on the same session while the service says it runs, up to three connects', async () => {
    answerStatus(() => 'running');
    const opened = await openSession({ api: service.api(), preflight: false }, 'launchRemote');
    const twice = failing(
      'browserType.connectOverCDP: WebSocket error: socket hang up',
      'Target page, context or browser has been closed',
    );
    expect(await connectWithin(opened, 'launchRemote', twice.connect, async () => {})).toEqual({
      connected: 3,
    });
    expect(service.calls('POST', SESSIONS)).toHaveLength(1);
    const thrice = failing('socket hang up', 'socket hang up', 'socket hang up');
    const error = await rejection(
      connectWithin(opened, 'launchRemote', thrice.connect, async () => {}),
    );
    expect(error.message).toBe('socket hang up');
    expect(thrice.calls()).toBe(3);
    await opened.finish();
  });

  it('is not tried again when the endpoint refused it with a status, or the session has ended', async () => {
    let status = 'running';
    answerStatus(() => status);
    const opened = await openSession({ api: service.api(), preflight: false }, 'launchRemote');
    for (const refusal of [
      'browserType.connectOverCDP: WebSocket error: ws://127.0.0.1:1/cdp/x 502 Bad Gateway',
      'Unexpected server response: 429',
    ]) {
      const refused = failing(refusal);
      await rejection(connectWithin(opened, 'launchRemote', refused.connect, async () => {}));
      expect(refused.calls()).toBe(1);
    }
    status = 'ended';
    const ended = failing('socket hang up');
    await rejection(connectWithin(opened, 'launchRemote', ended.connect, async () => {}));
    expect(ended.calls()).toBe(1);
    await opened.finish();
  });
});

describe("the adapter's finish()", () => {
  it('close(), asyncDispose and disconnected together delete once and close its own client once', async () => {
    const opened = await openSession(
      { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
      'launchRemote',
    );
    opened.connected();
    const first = opened.finish();
    const second = opened.finish();
    await Promise.all([first, second]);
    // A later path (the 'disconnected' event after close()) finds nothing left to do.
    await expect(opened.finish()).resolves.toBeUndefined();
    expect(service.calls('DELETE', DELETES)).toHaveLength(1);
  });
});

describe("end(): the adapter's close and disconnect, ordered by the session", () => {
  const launch = () =>
    openSession(
      { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
      'launchRemote',
    );

  it('the end starts before the disconnect: the disconnect it causes is not a drop', async () => {
    const opened = await launch();
    opened.connected();
    let stateAtDisconnect: string | undefined;
    await opened.end(async () => {
      stateAtDisconnect = opened.lease.state;
      // What the library's 'disconnected' does while its close runs.
      opened.dropped();
    });
    expect(stateAtDisconnect).toBe('ending');
    expect(opened.wasDropped()).toBe(false);
    expect(opened.lease.state).toBe('ended');
    expect(service.calls('DELETE', DELETES)).toHaveLength(1);
    // A drop would have asked the service whether the session still runs.
    expect(service.calls('GET', DELETES)).toHaveLength(0);
  });

  it("with keep (Puppeteer's disconnect()), the session is handed over first and not deleted", async () => {
    const opened = await launch();
    opened.connected();
    await opened.end(async () => opened.dropped(), { keep: true });
    expect(opened.lease.state).toBe('handed-over');
    expect(opened.wasDropped()).toBe(false);
    expect(service.calls('DELETE', DELETES)).toHaveLength(0);
    expect(service.calls('GET', DELETES)).toHaveLength(0);
  });

  it('with disconnectFirst, the DELETE waits for the disconnect, which is still no drop', async () => {
    const opened = await launch();
    opened.connected();
    let deletesDuringDisconnect = -1;
    await opened.end(
      async () => {
        // The fixture's per-test context close: screenshots and traces still need the browser.
        await new Promise((resolve) => setTimeout(resolve, 50));
        deletesDuringDisconnect = service.calls('DELETE', DELETES).length;
        opened.dropped();
      },
      { disconnectFirst: true },
    );
    expect(deletesDuringDisconnect).toBe(0);
    expect(opened.wasDropped()).toBe(false);
    expect(opened.lease.state).toBe('ended');
    expect(service.calls('DELETE', DELETES)).toHaveLength(1);
    expect(service.calls('GET', DELETES)).toHaveLength(0);
  });

  it('a failed disconnect is thrown after the session was ended', async () => {
    const opened = await launch();
    opened.connected();
    const error = await rejection(
      opened.end(async () => {
        throw new Error('socket already closed');
      }),
    );
    expect(error.message).toBe('socket already closed');
    expect(opened.lease.state).toBe('ended');
    expect(service.calls('DELETE', DELETES)).toHaveLength(1);
  });
});
