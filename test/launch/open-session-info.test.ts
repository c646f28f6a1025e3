/**
 * sessionOf()'s info object alone (issue 18's mutation pass): when a read starts a lookup, that
 * reads never start two, what refresh() waits for, and the debug lines of failed lookups. The
 * client is a stand-in whose connection lookups the test answers by hand.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi, SessionConnection } from '../../src/browser-api/index.js';
import { setDebugSink } from '../../src/http/debug.js';
import { deferred } from '../../src/launch/recordings.js';
import { lookUpConnection, sessionInfo } from '../../src/launch/session-info.js';

const CONNECTION = {
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

describe('sessionInfo', () => {
  it('with the connection known, answers every read without a lookup', async () => {
    const { api, lookups } = fakeApi();
    const info = sessionInfo(api, 's-1', CONNECTION);
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
    lookups[0]!.answer.resolve(CONNECTION);
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
    first.resolve(CONNECTION);
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
    lookups[0]!.answer.resolve(CONNECTION);
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
    lookups[0]!.answer.resolve(CONNECTION);
    expect(await found).toBe(CONNECTION);
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
