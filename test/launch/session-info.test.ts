/**
 * sessionOf()'s info object. Alone, against a stand-in client whose connection lookups the test
 * answers by hand: when a read starts a lookup, that reads never start two, what refresh() waits
 * for, and the debug lines of failed lookups. Through openSession(), against a scripted service
 * on a loopback server (fake-service.ts): a failed lookup, the lookup alongside the connect, and
 * the info printed.
 */
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi, SessionConnection } from '../../src/browser-api/index.js';
import { setDebugSink } from '../../src/http/debug.js';
import { connectWithin } from '../../src/launch/connect-within.js';
import { openSession } from '../../src/launch/open-session.js';
import { deferred } from '../../src/launch/recordings.js';
import { lookUpConnection, sessionInfo } from '../../src/launch/session-info.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { TOKEN, useFakeService } from './fake-service.js';

const service = useFakeService('rb-info-');
/** The connection lookup's route on the scripted service. */
const CONNECTION = /^\/sessions\/[^/]+\/connection$/;

/** What the stand-in client's lookups answer. */
const SESSION_CONNECTION = {
  id: 's-1',
  status: 'running',
  cdp_url: 'ws://127.0.0.1:1/devtools/browser/s-1?token=secret',
  live_view_url: 'http://live.test/s-1',
  debugger_address: '127.0.0.1:9222',
  config: { country: 'us' },
} as unknown as SessionConnection;

/** A client whose lookups stay pending until the test settles them. */
function fakeApi() {
  const lookups: { args: unknown[]; answer: ReturnType<typeof deferred<SessionConnection>> }[] = [];
  const api = {
    sessions: {
      connection: (...args: unknown[]) => {
        const answer = deferred<SessionConnection>();
        lookups.push({ args, answer });
        return answer.promise;
      },
    },
  } as unknown as BrowserApi;
  return { api, lookups };
}

const tick = () => new Promise((r) => setImmediate(r));
/** The debug lines of the current test (DEBUG=remote-browser:launch). */
let lines: string[] = [];
let restoreSink: ReturnType<typeof setDebugSink>;
const previousDebug = process.env.DEBUG;

beforeEach(() => {
  lines = [];
  restoreSink = setDebugSink((line) => lines.push(line));
  process.env.DEBUG = 'remote-browser:launch';
});
afterEach(() => {
  setDebugSink(restoreSink);
});
afterAll(() => {
  if (previousDebug === undefined) delete process.env.DEBUG;
  else process.env.DEBUG = previousDebug;
});

describe('sessionOf(browser) when the connection lookup failed', () => {
  it('says so on the debug channel, and looks it up again when the live view is asked for', async () => {
    const lines: string[] = [];
    const restore = setDebugSink((line) => lines.push(line));
    process.env.DEBUG = 'remote-browser:launch';
    try {
      service.on('GET', CONNECTION, json(500, { error: { code: 'internal', message: 'down' } }));
      const opened = await openSession(
        { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
        'launchRemote',
      );
      await opened.lookedUp;
      const id = opened.info.id;
      expect(
        lines.some((l) => l.includes(`session ${id}: GET /sessions/${id}/connection failed`)),
      ).toBe(true);
      const lookups = service.calls('GET', CONNECTION).length;
      service.off('GET');
      // The first read starts a new lookup; the service recovered, so a later read has it.
      expect(opened.info.liveViewUrl).toBeUndefined();
      await eventually(() => opened.info.liveViewUrl !== undefined, 5000, 'the live view URL');
      expect(opened.info.liveViewUrl).toBe(`http://127.0.0.1:1/live/${id}`);
      expect(opened.info.debuggerAddress).toBe('127.0.0.1:1');
      expect(service.calls('GET', CONNECTION)).toHaveLength(lookups + 1);
      await opened.finish();
    } finally {
      setDebugSink(restore);
    }
  });

  it('refresh() resolves after the new lookup; a lookup that fails again is reported too', async () => {
    const lines: string[] = [];
    const restore = setDebugSink((line) => lines.push(line));
    process.env.DEBUG = 'remote-browser:launch';
    try {
      service.on('GET', CONNECTION, json(500, { error: { code: 'internal', message: 'down' } }));
      const opened = await openSession(
        { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
        'launchRemote',
      );
      await opened.info.refresh();
      expect(lines.some((l) => l.includes('failed again'))).toBe(true);
      service.off('GET');
      await opened.info.refresh();
      expect(opened.info.config).toEqual({});
      expect(opened.info.liveViewUrl).toMatch(/^http:\/\/127\.0\.0\.1:1\/live\//);
      await opened.finish();
    } finally {
      setDebugSink(restore);
    }
  });
});

describe('the connection lookup', () => {
  it('runs alongside the connect, and the launch returns only once the live view is known', async () => {
    const events: string[] = [];
    let connectStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      connectStarted = resolve;
    });
    service.on('GET', CONNECTION, async (req, res) => {
      // Answers once the connect has begun (or after 3 s, so a sequential launch still ends).
      await Promise.race([started, new Promise((resolve) => setTimeout(resolve, 3000))]);
      events.push('lookup answered');
      const id = req.url.split('/').at(-2);
      json(200, {
        data: {
          id,
          status: 'running',
          cdp_url: 'ws://127.0.0.1:1/x',
          live_view_url: `http://127.0.0.1:1/live/${id}`,
          debugger_address: '127.0.0.1:1',
          config: {},
        },
      })(req, res);
    });
    const opened = await openSession(
      { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
      'launchRemote',
    );
    const browser = await connectWithin(
      opened,
      'launchRemote',
      async () => {
        events.push('connect started');
        connectStarted();
        return { connected: true };
      },
      async () => {},
    );
    expect(browser).toEqual({ connected: true });
    // A sequential launch would connect only after the lookup answered.
    expect(events).toEqual(['connect started', 'lookup answered']);
    expect(opened.info.liveViewUrl).toBe(`http://127.0.0.1:1/live/${opened.info.id}`);
    expect(service.calls('GET', CONNECTION)).toHaveLength(1);
    await opened.finish();
  });
});

describe('sessionOf(browser) printed', () => {
  it('reads the live view URL whole and prints its token as [REDACTED] under util.inspect and JSON.stringify', async () => {
    const liveToken = 'live-capability-0123456789abcdef';
    service.on('GET', CONNECTION, (req, res) =>
      json(200, {
        data: {
          id: req.url?.split('/')[2],
          status: 'running',
          cdp_url: 'ws://127.0.0.1:1/x',
          live_view_url: `http://127.0.0.1:1/live/abc?token=${liveToken}`,
          debugger_address: '127.0.0.1:1',
          config: { country: 'us' },
        },
      })(req, res),
    );
    try {
      const opened = await openSession(
        { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
        'launchRemote',
      );
      await opened.lookedUp;
      expect(opened.info.liveViewUrl).toBe(`http://127.0.0.1:1/live/abc?token=${liveToken}`);
      for (const text of [inspect(opened.info), JSON.stringify(opened.info)]) {
        expect(text).not.toContain(liveToken);
        expect(text).toContain('/live/abc?token=[REDACTED]');
        expect(text).toContain('us');
      }
      await opened.finish();
    } finally {
      service.off('GET');
    }
  });
});

describe('sessionInfo', () => {
  it('with the connection known, answers every read without a lookup', async () => {
    const { api, lookups } = fakeApi();
    const info = sessionInfo(api, 's-1', SESSION_CONNECTION);
    expect(info.id).toBe('s-1');
    expect(info.liveViewUrl).toBe('http://live.test/s-1');
    expect(info.debuggerAddress).toBe('127.0.0.1:9222');
    expect(info.config).toEqual({ country: 'us' });
    await info.refresh();
    expect(lookups).toHaveLength(0);
    expect(JSON.stringify(info)).not.toContain('secret');
  });

  it('unknown: a read starts one lookup, reads meanwhile start none, and its answer is kept', async () => {
    const { api, lookups } = fakeApi();
    const info = sessionInfo(api, 's-1', undefined);
    expect(lookups).toHaveLength(0);
    expect(info.liveViewUrl).toBeUndefined();
    expect(info.debuggerAddress).toBeUndefined();
    expect(info.config).toEqual({});
    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.args).toEqual(['s-1', { timeout: 15_000 }]);
    lookups[0]!.answer.resolve(SESSION_CONNECTION);
    await tick();
    expect(info.liveViewUrl).toBe('http://live.test/s-1');
    expect(info.config).toEqual({ country: 'us' });
    expect(lookups).toHaveLength(1);
  });

  it('a lookup that fails is said on the debug channel, and the next read tries again', async () => {
    const { api, lookups } = fakeApi();
    const info = sessionInfo(api, 's-1', undefined);
    void info.liveViewUrl;
    lookups[0]!.answer.reject(new Error('502 bad gateway'));
    await tick();
    expect(lines).toEqual([
      expect.stringContaining(
        'session s-1: GET /sessions/s-1/connection failed again (502 bad gateway); liveViewUrl and debuggerAddress stay unknown',
      ),
    ]);
    expect(info.debuggerAddress).toBeUndefined();
    expect(lookups).toHaveLength(2);
  });

  it('while the first lookup is on the wire, reads return nothing and start no other', async () => {
    const { api, lookups } = fakeApi();
    const first = deferred<SessionConnection | undefined>();
    const info = sessionInfo(api, 's-1', first.promise);
    expect(info.liveViewUrl).toBeUndefined();
    expect(lookups).toHaveLength(0);
    let refreshed = false;
    const refresh = info.refresh().then(() => {
      refreshed = true;
    });
    await tick();
    expect(refreshed).toBe(false);
    first.resolve(SESSION_CONNECTION);
    await refresh;
    expect(info.liveViewUrl).toBe('http://live.test/s-1');
    expect(lookups).toHaveLength(0);
  });

  it('after a first lookup that found nothing, refresh() and reads look again', async () => {
    const { api, lookups } = fakeApi();
    const first = deferred<SessionConnection | undefined>();
    const info = sessionInfo(api, 's-1', first.promise);
    first.resolve(undefined);
    const refresh = info.refresh();
    await tick();
    expect(lookups).toHaveLength(1);
    // A read while refresh()'s lookup is on the wire joins it.
    expect(info.liveViewUrl).toBeUndefined();
    expect(lookups).toHaveLength(1);
    lookups[0]!.answer.resolve(SESSION_CONNECTION);
    await refresh;
    expect(info.debuggerAddress).toBe('127.0.0.1:9222');
  });

  it('after a first lookup that found nothing, a read starts a lookup', async () => {
    const { api, lookups } = fakeApi();
    const first = deferred<SessionConnection | undefined>();
    const info = sessionInfo(api, 's-1', first.promise);
    first.resolve(undefined);
    await tick();
    expect(info.liveViewUrl).toBeUndefined();
    expect(lookups).toHaveLength(1);
  });
});

describe('lookUpConnection', () => {
  it('asks with a 15 s timeout and hands the connection over', async () => {
    const { api, lookups } = fakeApi();
    const found = lookUpConnection(api, 's-1');
    lookups[0]!.answer.resolve(SESSION_CONNECTION);
    expect(await found).toBe(SESSION_CONNECTION);
    expect(lookups[0]!.args).toEqual(['s-1', { timeout: 15_000 }]);
    expect(lines).toEqual([]);
  });

  it('a failure resolves undefined and is said on the debug channel', async () => {
    const { api, lookups } = fakeApi();
    const found = lookUpConnection(api, 's-2');
    lookups[0]!.answer.reject(new Error('timed out'));
    expect(await found).toBeUndefined();
    expect(lines).toEqual([
      expect.stringContaining(
        'session s-2: GET /sessions/s-2/connection failed (timed out); liveViewUrl and debuggerAddress are looked up again when asked for',
      ),
    ]);
  });
});
