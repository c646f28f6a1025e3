/**
 * The watchdog child's mirror and last act (src/launch/watchdog-mirror.ts), in-process against
 * a scripted service on a real loopback server. The child process itself, spawned and left by
 * a SIGKILLed parent, is in leak-paths.child.test.ts and the exit matrix.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type WatchdogMirrorOptions, watchdogMirror } from '../../src/launch/watchdog-mirror.js';
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
    mirror.receive({ add: 'a/b c' });
    mirror.receive({ add: 'broken' });
    service.on('DELETE', /\/broken$/, json(500, { error: { code: 'internal', message: 'boom' } }));
    await mirror.parentGone();
    expect(service.calls('DELETE', ONE).map((r) => r.url.split('/').pop())).toContain('a%2Fb%20c');
    expect(ledgerLines()).toEqual([
      expect.objectContaining({ op: 'ended', id: 'a/b c', by: 'gone' }),
    ]);
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

  it('reads a list without data as empty', async () => {
    service.on('GET', LIST, json(200, {}));
    const mirror = mirrorOf();
    mirror.receive({ intent: intentAt(new Date(Date.now() - 1000)) });
    await mirror.parentGone();
    expect(service.calls('GET', LIST)).toHaveLength(2);
    expect(ledgerLines()).toEqual([
      expect.objectContaining({ op: 'create-settled', intent: 'i-1' }),
    ]);
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
