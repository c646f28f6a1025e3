/**
 * The watchdog child's mirror and last act (src/launch/watchdog-mirror.ts), in-process against
 * a scripted service on a real loopback server. The child process itself, spawned and left by
 * a SIGKILLed parent, is in leak-paths.child.test.ts and the exit matrix.
 */

import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  runWatchdog,
  type WatchdogMessage,
  type WatchdogMirrorOptions,
  watchdogMirror,
} from '../../src/launch/watchdog-mirror.js';
import { json } from '../helpers/http-server.js';
import { type FakeService, heldUntil, startFakeService, TOKEN } from './fake-service.js';

const ONE = /^\/sessions\/[^/]+$/;
const LIST = /^\/sessions$/;

let service: FakeService;
let dir: string;
let ledger: string;

beforeEach(async () => {
  service = await startFakeService();
  dir = mkdtempSync(join(tmpdir(), 'rb-watchdog-mirror-'));
  ledger = join(dir, 'ledger.jsonl');
});
afterEach(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const mirrorOf = (options: Partial<WatchdogMirrorOptions> = {}) =>
  watchdogMirror({ origin: service.origin, token: TOKEN, ledger, recheckAfterMs: 0, ...options });

const ledgerLines = (): Record<string, unknown>[] => {
  try {
    return readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  } catch {
    return [];
  }
};
const deleted = () =>
  service.calls('DELETE', ONE).map((r) => decodeURIComponent(r.url.split('/').pop() ?? ''));
const intentAt = (at: Date, targeting: Record<string, string> = {}, intent = 'i-1') => ({
  intent,
  at: at.toISOString(),
  targeting,
});

/** The ledger line of another process's create of `{ country: 'us' }`, still on the wire. */
const openCreateOf = (pid: number) =>
  `${JSON.stringify({
    op: 'creating',
    intent: `process-${pid}`,
    origin: service.origin,
    pid,
    at: new Date(Date.now() - 500).toISOString(),
    targeting: { country: 'us' },
  })}\n`;

describe('the ledger file', () => {
  it('is created owner-only (0600) by the first line the watchdog appends', async () => {
    const previous = process.umask(0o022);
    try {
      const mirror = mirrorOf();
      mirror.receive({ add: service.createSession('').id });
      await mirror.parentGone();
    } finally {
      process.umask(previous);
    }
    expect(ledgerLines().length).toBeGreaterThan(0);
    expect(statSync(ledger).mode & 0o777).toBe(0o600);
  });
});

describe('what the mirror holds', () => {
  it('adds and removes sessions and intents, several fields in one message', () => {
    const mirror = mirrorOf();
    mirror.receive({ add: 'a' });
    mirror.receive({ add: 'b' });
    mirror.receive({ intent: intentAt(new Date(), {}, 'i-1') });
    mirror.receive({ intent: intentAt(new Date(), {}, 'i-2') });
    expect([...mirror.sessions]).toEqual(['a', 'b']);
    expect([...mirror.intents]).toEqual(['i-1', 'i-2']);
    // A create's end and its session arrive together.
    mirror.receive({ settled: 'i-1', add: 'c' });
    mirror.receive({ remove: 'a' });
    expect([...mirror.sessions]).toEqual(['b', 'c']);
    expect([...mirror.intents]).toEqual(['i-2']);
  });

  it('hands out copies: changing them does not change what it will end', async () => {
    const mirror = mirrorOf();
    const { id } = service.createSession('');
    mirror.receive({ add: id });
    (mirror.sessions as Set<string>).clear();
    await mirror.parentGone();
    expect(deleted()).toEqual([id]);
  });
});

describe('when the parent is gone', () => {
  it('after a clean goodbye it ends nothing, whatever it held', async () => {
    const mirror = mirrorOf();
    mirror.receive({ add: service.createSession('').id });
    mirror.receive({ intent: intentAt(new Date(0)) });
    mirror.receive({ bye: true });
    await mirror.parentGone();
    expect(service.server.requests).toEqual([]);
    expect(service.running()).toHaveLength(1);
    expect(ledgerLines()).toEqual([]);
  });

  it('holding nothing it sends nothing', async () => {
    const mirror = mirrorOf();
    mirror.receive({ add: 'x' });
    mirror.receive({ remove: 'x' });
    mirror.receive({ intent: intentAt(new Date(0)) });
    mirror.receive({ settled: 'i-1' });
    await mirror.parentGone();
    expect(service.server.requests).toEqual([]);
  });

  it('deletes each session the parent still held, with its token, and records it in the ledger', async () => {
    const kept = service.createSession('').id;
    const held = service.createSession('').id;
    const released = service.createSession('').id;
    const mirror = mirrorOf();
    mirror.receive({ add: held });
    mirror.receive({ add: released });
    mirror.receive({ remove: released });
    await mirror.parentGone();
    expect(deleted()).toEqual([held]);
    expect(service.calls('DELETE', ONE)[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(service.running().map((s) => s.id)).toEqual([kept, released]);
    const [line, ...rest] = ledgerLines();
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ op: 'ended', id: held, by: 'watchdog' });
    expect(Number.isNaN(Date.parse(line?.at as string))).toBe(false);
  });

  it('escapes the id in the path; records a 404 as gone and a failure as nothing', async () => {
    const mirror = mirrorOf();
    // Percent-encoded, it stays one path segment (an id holding "/" is refused by BrowserApi's
    // idSegment before any request: sessions.end() is the only way a session is ended).
    mirror.receive({ add: 'a?b c' });
    mirror.receive({ add: 'broken' });
    service.on('DELETE', /\/broken$/, json(500, { error: { code: 'internal', message: 'boom' } }));
    await mirror.parentGone();
    expect(service.calls('DELETE', ONE).map((r) => r.url.split('/').pop())).toContain('a%3Fb%20c');
    expect(ledgerLines()).toEqual([
      expect.objectContaining({ op: 'ended', id: 'a?b c', by: 'gone' }),
    ]);
  });

  it('ends through BrowserApi: a DELETE answered 503 is tried again, as every client call is', async () => {
    const { id } = service.createSession('');
    let refused = 0;
    service.on('DELETE', ONE, (req, res) => {
      if (refused++ === 0)
        return json(
          503,
          { error: { code: 'unavailable', message: 'busy' } },
          { 'retry-after': '0' },
        )(req, res);
      return json(200, { data: { status: 'success' } })(req, res);
    });
    const mirror = mirrorOf();
    mirror.receive({ add: id });
    await mirror.parentGone();
    expect(deleted()).toEqual([id, id]);
    expect(ledgerLines()).toEqual([expect.objectContaining({ op: 'ended', id, by: 'watchdog' })]);
  });

  it('gives up on a DELETE that never answers after requestTimeoutMs, and settles', async () => {
    const never = new Promise<void>(() => {});
    service.on('DELETE', ONE, heldUntil(never, json(200, {})));
    const mirror = mirrorOf({ requestTimeoutMs: 100 });
    mirror.receive({ add: service.createSession('').id });
    await expect(mirror.parentGone()).resolves.toBeUndefined();
    expect(ledgerLines()).toEqual([]);
  });

  it('still ends the sessions when the ledger cannot be written', async () => {
    const mirror = mirrorOf({ ledger: join(dir, 'missing-dir', 'ledger.jsonl') });
    const { id } = service.createSession('');
    mirror.receive({ add: id });
    await mirror.parentGone();
    expect(deleted()).toEqual([id]);
  });

  it('with no ledger path it ends the sessions and writes no file', async () => {
    const mirror = mirrorOf({ ledger: '' });
    const { id } = service.createSession('');
    mirror.receive({ add: id });
    await mirror.parentGone();
    expect(deleted()).toEqual([id]);
    expect(ledgerLines()).toEqual([]);
  });
});

describe('a create the parent had on the wire', () => {
  it('ends the running session it may have made: created since, same targeting, unknown', async () => {
    const before = service.createSession(JSON.stringify({ country: 'us' }));
    before.created_at = new Date(Date.now() - 10 * 60_000).toISOString();
    const other = service.createSession(JSON.stringify({ country: 'de' }));
    const inLedger = service.createSession(JSON.stringify({ country: 'us' }));
    writeFileSync(ledger, `${JSON.stringify({ op: 'created', id: inLedger.id })}\n`);
    const held = service.createSession(JSON.stringify({ country: 'us' }));
    const orphan = service.createSession(JSON.stringify({ country: 'US' }));
    const mirror = mirrorOf();
    mirror.receive({ add: held.id });
    mirror.receive({ intent: intentAt(new Date(Date.now() - 1000), { country: 'us' }) });
    await mirror.parentGone();
    // The held session by its own DELETE, once; the orphan by reconciliation; nothing else.
    expect(deleted().sort()).toEqual([held.id, orphan.id].sort());
    expect(
      service
        .running()
        .map((s) => s.id)
        .sort(),
    ).toEqual([before.id, other.id, inLedger.id].sort());
    expect(service.calls('GET', LIST).map((r) => r.url)).toEqual([
      '/api/v2/browser/sessions?status=running',
      '/api/v2/browser/sessions?status=running',
    ]);
    expect(service.calls('GET', LIST)[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(ledgerLines().filter((l) => l.op === 'create-settled')).toEqual([
      expect.objectContaining({ intent: 'i-1' }),
    ]);
  });

  it('looks a second time, after recheckAfterMs, for a session the service started late', async () => {
    let late = '';
    service.on('GET', LIST, (req, res) => {
      const looks = service.calls('GET', LIST).length;
      if (looks === 2) late = service.createSession('').id;
      json(200, { data: service.running() })(req, res);
    });
    const mirror = mirrorOf({ recheckAfterMs: 50 });
    mirror.receive({ intent: intentAt(new Date(Date.now() - 1000)) });
    await mirror.parentGone();
    expect(service.calls('GET', LIST)).toHaveLength(2);
    expect(late).not.toBe('');
    expect(deleted()).toEqual([late]);
  });

  it('stops when the list fails, and does not call the create settled', async () => {
    service.on('GET', LIST, json(500, { error: { code: 'internal', message: 'boom' } }));
    service.createSession('');
    const mirror = mirrorOf();
    mirror.receive({ intent: intentAt(new Date(Date.now() - 1000)) });
    await mirror.parentGone();
    expect(service.calls('GET', LIST)).toHaveLength(1);
    expect(deleted()).toEqual([]);
    expect(ledgerLines()).toEqual([]);
  });

  it('takes a list without data for a failed list: the create stays open for the reap', async () => {
    // A 200 that breaks the contract proves nothing ran: calling the create settled would let
    // a session it made go unreaped (fail closed, as the parent's own reconciliation does).
    service.on('GET', LIST, json(200, {}));
    const mirror = mirrorOf();
    mirror.receive({ intent: intentAt(new Date(Date.now() - 1000)) });
    await mirror.parentGone();
    expect(service.calls('GET', LIST)).toHaveLength(1);
    expect(ledgerLines()).toEqual([]);
  });

  it('a session that may be any one of several creates is an orphan', async () => {
    const us = service.createSession(JSON.stringify({ country: 'us' }));
    const de = service.createSession(JSON.stringify({ country: 'de' }));
    const fr = service.createSession(JSON.stringify({ country: 'fr' }));
    const mirror = mirrorOf();
    const since = new Date(Date.now() - 1000);
    mirror.receive({ intent: intentAt(since, { country: 'us' }, 'i-us') });
    mirror.receive({ intent: intentAt(since, { country: 'de' }, 'i-de') });
    await mirror.parentGone();
    expect(deleted().sort()).toEqual([us.id, de.id].sort());
    expect(service.running().map((s) => s.id)).toEqual([fr.id]);
  });

  it('waits 2 s by default before the second look', async () => {
    const real = globalThis.setTimeout;
    const delays: number[] = [];
    // Pass-through, except that the 2 s pause is recorded and taken at once.
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      if (ms === 2000) delays.push(ms);
      return real(fn, ms === 2000 ? 0 : ms);
    }) as typeof setTimeout);
    try {
      const mirror = watchdogMirror({ origin: service.origin, token: TOKEN, ledger });
      mirror.receive({ intent: intentAt(new Date(Date.now() - 1000)) });
      await mirror.parentGone();
    } finally {
      vi.restoreAllMocks();
    }
    expect(delays).toEqual([2000]);
    expect(service.calls('GET', LIST)).toHaveLength(2);
  });

  it("leaves a session a live process's create may have made, and the parent's create open for the reap", async () => {
    const theirs = service.createSession(JSON.stringify({ country: 'us' }));
    // Another process on this machine, alive, with its create of the same targeting on the wire.
    writeFileSync(ledger, openCreateOf(process.pid));
    const mirror = mirrorOf();
    mirror.receive({ intent: intentAt(new Date(Date.now() - 1000), { country: 'us' }) });
    await mirror.parentGone();
    expect(service.calls('GET', LIST)).toHaveLength(2);
    expect(deleted()).toEqual([]);
    expect(service.running().map((s) => s.id)).toEqual([theirs.id]);
    expect(ledgerLines().filter((l) => l.op === 'create-settled')).toEqual([]);
  });

  it("a dead process's create left open contests nothing", async () => {
    const orphan = service.createSession(JSON.stringify({ country: 'us' }));
    writeFileSync(ledger, openCreateOf(2 ** 22 + 1));
    const mirror = mirrorOf();
    mirror.receive({ intent: intentAt(new Date(Date.now() - 1000), { country: 'us' }) });
    await mirror.parentGone();
    expect(deleted()).toEqual([orphan.id]);
  });

  it('a settled create is not reconciled', async () => {
    service.createSession('');
    const mirror = mirrorOf();
    mirror.receive({ add: 'held' });
    mirror.receive({ intent: intentAt(new Date(Date.now() - 1000)) });
    mirror.receive({ settled: 'i-1' });
    await mirror.parentGone();
    expect(service.calls('GET', LIST)).toEqual([]);
  });
});

describe('runWatchdog: the child process wiring', () => {
  /** A stand-in for the child's `process`: its events, its environment, its send and exit. */
  function fakeProcess(env: Record<string, string | undefined>) {
    const events = new EventEmitter();
    const sent: unknown[] = [];
    let exited: (code: number) => void = () => {};
    const exit = new Promise<number>((resolve) => {
      exited = resolve;
    });
    return {
      proc: {
        env,
        on: (event: string, listener: (...args: any[]) => void) => events.on(event, listener),
        send: (message: { ready: true }) => sent.push(message),
        exit: (code: number) => exited(code),
      },
      events,
      sent,
      exit,
    };
  }
  const envOf = () => ({
    REMOTE_BROWSER_WATCHDOG_ORIGIN: service.origin,
    REMOTE_BROWSER_WATCHDOG_TOKEN: TOKEN,
    REMOTE_BROWSER_WATCHDOG_LEDGER: ledger,
    OTHER: 'kept',
  });

  it('takes its settings from the environment, drops the token from it, and says it is ready', () => {
    const env = envOf();
    const fake = fakeProcess(env);
    runWatchdog(fake.proc);
    expect(fake.sent).toEqual([{ ready: true }]);
    expect(env).toEqual({
      REMOTE_BROWSER_WATCHDOG_ORIGIN: service.origin,
      REMOTE_BROWSER_WATCHDOG_LEDGER: ledger,
      OTHER: 'kept',
    });
  });

  it('mirrors the messages; on disconnect it deletes what was held with the token, records it, then exits 0', async () => {
    const fake = fakeProcess(envOf());
    const mirror = runWatchdog(fake.proc);
    const { id } = service.createSession('');
    fake.events.emit('message', { add: id } satisfies WatchdogMessage);
    fake.events.emit('message', { add: 'other' } satisfies WatchdogMessage);
    fake.events.emit('message', { remove: 'other' } satisfies WatchdogMessage);
    expect([...mirror.sessions]).toEqual([id]);
    let deletedAtExit: string[] = [];
    fake.exit.then(() => {
      deletedAtExit = deleted();
    });
    fake.events.emit('disconnect');
    expect(await fake.exit).toBe(0);
    expect(deletedAtExit).toEqual([id]);
    expect(service.calls('DELETE', ONE)[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(ledgerLines()).toEqual([expect.objectContaining({ op: 'ended', id, by: 'watchdog' })]);
  });

  it('after a goodbye it exits 0 without a request', async () => {
    const fake = fakeProcess(envOf());
    runWatchdog(fake.proc);
    fake.events.emit('message', { add: service.createSession('').id });
    fake.events.emit('message', { bye: true });
    fake.events.emit('disconnect');
    expect(await fake.exit).toBe(0);
    expect(service.server.requests).toEqual([]);
  });

  it('without its settings, or a channel to send on, it still starts and exits', async () => {
    const fake = fakeProcess({});
    const mirror = runWatchdog({ ...fake.proc, send: undefined });
    expect(fake.sent).toEqual([]);
    fake.events.emit('disconnect');
    expect(await fake.exit).toBe(0);
    expect([...mirror.sessions]).toEqual([]);
  });
});
