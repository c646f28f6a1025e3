/**
 * The local ledger on its own (ledger.ts): where it lives, what each line holds, how a session's
 * state and a create's intent follow from the lines, and that a broken or missing ledger never
 * fails a launch. Against a real file in a temporary cache dir.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { adoptSession } from '../../src/launch/attach-session.js';
import {
  COMPACT_PAST_BYTES,
  type CreateIntent,
  cacheDir,
  compact,
  contestedIntents,
  findOrphans,
  isProcessAlive,
  knownIds,
  ledgerPath,
  openEntries,
  openIntents,
  type RunningSession,
  recordCreated,
  recordCreateSettled,
  recordCreating,
  recordDeleteFailed,
  recordDeleting,
  recordEnded,
  SKEW_MS,
  sameTargeting,
  TAIL_ENDS,
  targetingOf,
} from '../../src/launch/ledger.js';
import { openSession } from '../../src/launch/open-session.js';
import { reapSessions } from '../../src/launch/reap.js';
import { startFakeService } from './fake-service.js';

let dir = '';
const previous = process.env.REMOTE_BROWSER_CACHE_DIR;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rb-ledger-'));
  // A cache dir that does not exist yet, nor its parent: the first line creates both.
  process.env.REMOTE_BROWSER_CACHE_DIR = join(dir, 'nested', 'cache');
});
afterEach(() => {
  if (previous === undefined) delete process.env.REMOTE_BROWSER_CACHE_DIR;
  else process.env.REMOTE_BROWSER_CACHE_DIR = previous;
  rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

const lines = () =>
  readFileSync(ledgerPath(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const intent = (id: string, at = '2026-11-23T12:00:00.000Z'): CreateIntent => ({
  intent: id,
  origin: 'http://svc',
  pid: 4242,
  at,
  targeting: { country: 'us' },
});

describe('where the ledger lives', () => {
  const platform = process.platform;
  const onPlatform = (name: string) =>
    Object.defineProperty(process, 'platform', { value: name, configurable: true });
  afterEach(() => onPlatform(platform));

  it('REMOTE_BROWSER_CACHE_DIR first, whatever the platform', () => {
    for (const name of ['linux', 'win32', 'darwin']) {
      onPlatform(name);
      expect(
        cacheDir({ REMOTE_BROWSER_CACHE_DIR: '/x/rb', LOCALAPPDATA: '/l', XDG_CACHE_HOME: '/c' }),
      ).toBe('/x/rb');
    }
  });

  it('Linux: XDG_CACHE_HOME, else ~/.cache, each with remote-browser', () => {
    onPlatform('linux');
    expect(cacheDir({ XDG_CACHE_HOME: '/c', LOCALAPPDATA: '/l' })).toBe(
      join('/c', 'remote-browser'),
    );
    expect(cacheDir({ XDG_CACHE_HOME: '' })).toBe(join(homedir(), '.cache', 'remote-browser'));
    expect(cacheDir({})).toBe(join(homedir(), '.cache', 'remote-browser'));
  });

  it('Windows: LOCALAPPDATA, else the XDG rule', () => {
    onPlatform('win32');
    expect(cacheDir({ LOCALAPPDATA: '/l', XDG_CACHE_HOME: '/c' })).toBe(
      join('/l', 'remote-browser'),
    );
    expect(cacheDir({ XDG_CACHE_HOME: '/c' })).toBe(join('/c', 'remote-browser'));
  });

  it('macOS: ~/Library/Caches, even with XDG_CACHE_HOME or LOCALAPPDATA set', () => {
    onPlatform('darwin');
    expect(cacheDir({ XDG_CACHE_HOME: '/c', LOCALAPPDATA: '/l' })).toBe(
      join(homedir(), 'Library', 'Caches', 'remote-browser'),
    );
  });

  it('reads process.env by default, and the file is sessions.jsonl in it', () => {
    expect(cacheDir()).toBe(join(dir, 'nested', 'cache'));
    expect(ledgerPath()).toBe(join(dir, 'nested', 'cache', 'sessions.jsonl'));
  });
});

describe('writing lines', () => {
  it('creates the cache dir and an owner-only file, one JSON line per event', () => {
    recordCreated('s-1', 'http://svc');
    recordDeleting('s-1');
    recordDeleteFailed('s-1');
    recordEnded('s-1');
    recordEnded('s-2', 'kept');
    recordCreating(intent('i-1'));
    recordCreateSettled('i-1');
    expect(statSync(ledgerPath()).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
    const written = lines();
    expect(written.map((l) => l.op)).toEqual([
      'created',
      'deleting',
      'delete-failed',
      'ended',
      'ended',
      'creating',
      'create-settled',
    ]);
    expect(written[0]).toEqual({
      op: 'created',
      id: 's-1',
      origin: 'http://svc',
      pid: process.pid,
      createdAt: expect.any(String),
    });
    for (const l of written.filter((l) => l.op !== 'created' && l.op !== 'creating'))
      expect(Number.isNaN(Date.parse(l.at as string))).toBe(false);
    expect(Number.isNaN(Date.parse(written[0]?.createdAt as string))).toBe(false);
    expect(written[1]).toMatchObject({ op: 'deleting', id: 's-1' });
    expect(written[2]).toMatchObject({ op: 'delete-failed', id: 's-1' });
    // `close` unless told otherwise.
    expect(written[3]).toMatchObject({ op: 'ended', id: 's-1', by: 'close' });
    expect(written[4]).toMatchObject({ op: 'ended', id: 's-2', by: 'kept' });
    expect(written[5]).toEqual({ op: 'creating', ...intent('i-1') });
    expect(written[6]).toMatchObject({ op: 'create-settled', intent: 'i-1' });
  });

  it('never throws when the ledger cannot be written (the cache dir is a file)', () => {
    mkdirSync(join(dir, 'nested'));
    writeFileSync(join(dir, 'nested', 'cache'), 'not a dir');
    expect(() => recordCreated('s-1', 'http://svc')).not.toThrow();
    expect(() => recordCreating(intent('i-1'))).not.toThrow();
    expect(() => compact()).not.toThrow();
    expect(openEntries()).toEqual([]);
    expect(knownIds()).toEqual(new Set());
  });
});

describe('reading the state back', () => {
  it('a missing ledger is empty', () => {
    expect(openEntries()).toEqual([]);
    expect(openIntents()).toEqual([]);
    expect(knownIds()).toEqual(new Set());
  });

  it("a session's state is its last line; an ended one is no longer open", () => {
    recordCreated('a', 'http://svc');
    recordCreated('b', 'http://svc');
    recordCreated('c', 'http://svc');
    recordCreated('d', 'http://svc');
    recordDeleting('b');
    recordDeleteFailed('c');
    recordEnded('d', 'reap');
    // Lines about a session the ledger never saw created open nothing.
    recordDeleting('x');
    recordDeleteFailed('y');
    expect(openEntries()).toEqual([
      {
        id: 'a',
        origin: 'http://svc',
        pid: process.pid,
        createdAt: expect.any(String),
        state: 'running',
      },
      {
        id: 'b',
        origin: 'http://svc',
        pid: process.pid,
        createdAt: expect.any(String),
        state: 'deleting',
      },
      {
        id: 'c',
        origin: 'http://svc',
        pid: process.pid,
        createdAt: expect.any(String),
        state: 'delete-failed',
      },
    ]);
  });

  it('an intent stays open until it is settled', () => {
    recordCreating(intent('i-1'));
    recordCreating(intent('i-2'));
    recordCreateSettled('i-1');
    expect(openIntents()).toEqual([intent('i-2')]);
  });

  it("contestedIntents: a live process's open creates to the same service, but for those excepted", () => {
    const live = (id: string, origin = 'http://svc') => ({
      ...intent(id),
      origin,
      pid: process.ppid,
    });
    recordCreating(live('mine'));
    recordCreating(live('theirs'));
    recordCreating(live('elsewhere', 'http://other-svc'));
    recordCreating(intent('dead')); // pid 4242: no such process here
    recordCreating(live('done'));
    recordCreateSettled('done');
    expect(contestedIntents(new Set(['mine']), 'http://svc').map((i) => i.intent)).toEqual([
      'theirs',
    ]);
    expect(contestedIntents(new Set(), 'http://other-svc').map((i) => i.intent)).toEqual([
      'elsewhere',
    ]);
  });

  it('skips blank and torn lines (a crash mid-write) and reads the rest', () => {
    mkdirSync(join(dir, 'nested', 'cache'), { recursive: true });
    const created = { op: 'created', id: 'a', origin: 'o', pid: 1, createdAt: 't' };
    writeFileSync(
      ledgerPath(),
      `${JSON.stringify(created)}\n  \n\n{"op":"ended","id":"a",\n${JSON.stringify({ ...created, id: 'b' })}\n`,
    );
    expect(openEntries().map((e) => e.id)).toEqual(['a', 'b']);
  });

  it('knownIds: every id any line names, open or ended, and no intent id', () => {
    recordCreated('sess-a', 'http://svc');
    recordEnded('sess-a');
    recordCreated('sess-b', 'http://svc');
    recordDeleting('sess-c');
    recordCreating(intent('i-1'));
    expect(knownIds()).toEqual(new Set(['sess-a', 'sess-b', 'sess-c']));
  });
});

describe('compact', () => {
  it('keeps only the open sessions with their state and the open intents', () => {
    recordCreated('a', 'http://svc');
    recordCreated('b', 'http://svc');
    recordCreated('c', 'http://svc');
    recordCreated('gone', 'http://svc');
    recordDeleting('b');
    recordDeleteFailed('c');
    recordEnded('gone');
    recordCreating(intent('i-1'));
    recordCreating(intent('i-2'));
    recordCreateSettled('i-2');
    const before = openEntries();
    compact();
    expect(openEntries()).toEqual(before);
    expect(openIntents()).toEqual([intent('i-1')]);
    expect(lines().map((l) => `${l.op} ${l.id ?? l.intent}`)).toEqual([
      'created a',
      'created b',
      'deleting b',
      'created c',
      'delete-failed c',
      'creating i-1',
      // the tail: a session ended a moment ago stays known to another process's orphan search
      'ended gone',
    ]);
    expect(knownIds()).toContain('gone');
    expect(statSync(ledgerPath()).mode & 0o777).toBe(0o600);
  });

  it('writes an owner-only file when there was none', () => {
    mkdirSync(cacheDir(), { recursive: true });
    compact();
    expect(readFileSync(ledgerPath(), 'utf8')).toBe('');
    expect(statSync(ledgerPath()).mode & 0o777).toBe(0o600);
  });

  it('nothing open leaves only the tail of ended lines', () => {
    recordCreated('a', 'http://svc');
    recordDeleting('a');
    recordEnded('a', 'kept');
    compact();
    expect(lines()).toEqual([{ op: 'ended', id: 'a', at: expect.any(String), by: 'kept' }]);
  });

  it(`keeps the last ${TAIL_ENDS} ended lines, one per session, and drops older ones`, () => {
    for (let i = 0; i < TAIL_ENDS + 10; i++) recordEnded(`e-${i}`);
    recordEnded('e-0', 'reap');
    compact();
    const ended = lines().map((l) => l.id);
    expect(ended).toHaveLength(TAIL_ENDS);
    // e-0 ended again last: it is the newest, and named once
    expect(ended.at(-1)).toBe('e-0');
    expect(ended.filter((id) => id === 'e-0')).toHaveLength(1);
    expect(ended).not.toContain('e-1');
    expect(ended).not.toContain('e-10');
    expect(ended).toContain('e-11');
  });

  it('compacts by itself once an append finds the file past its size', () => {
    recordCreated('open', 'http://svc');
    let i = 0;
    while (statSync(ledgerPath()).size <= COMPACT_PAST_BYTES / 2) recordEnded(`e-${i++}`);
    const before = statSync(ledgerPath()).size;
    for (let j = 0; statSync(ledgerPath()).size >= before; j++) recordEnded(`f-${j}`);
    expect(statSync(ledgerPath()).size).toBeLessThan(COMPACT_PAST_BYTES);
    expect(openEntries().map((e) => e.id)).toEqual(['open']);
    expect(lines().filter((l) => l.op === 'ended')).toHaveLength(TAIL_ENDS);
    expect(statSync(ledgerPath()).mode & 0o777).toBe(0o600);
  });
});

describe('the ledger of a long run', () => {
  const launch = { preflight: false as const, country: 'us' };

  it('holds one created line per session, launched or adopted', async () => {
    const service = await startFakeService();
    try {
      const api = service.api();
      const launched = await openSession({ ...launch, api }, 'launchRemote');
      const other = service.createSession('{}').id;
      const adopted = await adoptSession(other, { api }, 'connectRemote');
      await launched.finish();
      await adopted.finish();
      const created = lines().filter((l) => l.op === 'created');
      expect(created.map((l) => l.id)).toEqual([launched.lease.id, other]);
    } finally {
      await service.close();
    }
  });

  it('after 1,000 sessions launched and closed, and a reap, holds its open entries and the bounded tail', async () => {
    const service = await startFakeService();
    try {
      const api = service.api();
      const stay = [];
      for (let i = 0; i < 3; i++) stay.push(await openSession({ ...launch, api }, 'launchRemote'));
      for (let i = 0; i < 1000; i++) {
        const opened = await openSession({ ...launch, api }, 'launchRemote');
        await opened.finish();
        // Never far past the compaction size, however many sessions came and went.
        if (i % 100 === 99)
          expect(statSync(ledgerPath()).size).toBeLessThan(COMPACT_PAST_BYTES + 40_000);
      }
      await reapSessions({ api });
      const open = stay.map((o) => o.lease.id);
      expect(openEntries().map((e) => e.id)).toEqual(open);
      const after = lines();
      expect(after.filter((l) => l.op === 'created').map((l) => l.id)).toEqual(open);
      const ended = after.filter((l) => l.op === 'ended');
      expect(ended).toHaveLength(TAIL_ENDS);
      expect(after).toHaveLength(open.length + TAIL_ENDS);
      // 3 open entries and the tail: about 25 kB, where the lines of 1,003 sessions are 500 kB.
      expect(statSync(ledgerPath()).size).toBeLessThan(open.length * 200 + TAIL_ENDS * 100);
      for (const o of stay) await o.finish();
    } finally {
      await service.close();
    }
  }, 60_000);
});

describe('isProcessAlive', () => {
  it('this process is alive; a pid that ended is not', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    // Far above any pid_max: no such process.
    expect(isProcessAlive(2 ** 30)).toBe(false);
  });

  it("a process that exists but is another user's (EPERM) counts as alive", () => {
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
    });
    expect(isProcessAlive(1234)).toBe(true);
    expect(kill).toHaveBeenCalledWith(1234, 0);
    kill.mockImplementation(() => {
      throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
    });
    expect(isProcessAlive(1234)).toBe(false);
  });
});

describe('targetingOf', () => {
  it('keeps every targeting field that is set, as a string, and nothing else', () => {
    const body = {
      proxy_password: 'never-in-the-ledger',
      country: 'us',
      region: 'ny',
      city: 'nyc',
      zip: '10001',
      isp: 'acme',
      protocol: 'http',
      connection_type: 'residential',
      session_type: 'sticky',
      filter_mode: 'quality',
      profile_id: 7,
      headless: true,
      region_extra: 'x',
    };
    expect(targetingOf(body)).toEqual({
      country: 'us',
      region: 'ny',
      city: 'nyc',
      zip: '10001',
      isp: 'acme',
      protocol: 'http',
      connection_type: 'residential',
      session_type: 'sticky',
      filter_mode: 'quality',
      profile_id: '7',
    });
  });

  it('skips fields that are null or undefined, but keeps false and 0', () => {
    expect(targetingOf({ country: null, region: undefined, zip: 0, isp: false })).toEqual({
      zip: '0',
      isp: 'false',
    });
  });
});

describe('sameTargeting', () => {
  it('matches whatever the create asked for when the service shows no config', () => {
    expect(sameTargeting(undefined, { country: 'us' })).toBe(true);
  });

  it('compares each asked-for field case-insensitively, and ignores fields the service leaves out', () => {
    expect(sameTargeting({ country: 'US', region: 'NY' }, { country: 'us', region: 'ny' })).toBe(
      true,
    );
    expect(sameTargeting({ country: 'us', region: null }, { country: 'us', region: 'ny' })).toBe(
      true,
    );
    expect(sameTargeting({ country: 'us' }, { country: 'us', region: 'ny' })).toBe(true);
  });

  it('refuses a session when any one asked-for field differs', () => {
    expect(sameTargeting({ country: 'us', region: 'ca' }, { country: 'us', region: 'ny' })).toBe(
      false,
    );
    expect(sameTargeting({ country: 'de', region: 'ny' }, { country: 'us', region: 'ny' })).toBe(
      false,
    );
    expect(sameTargeting({ profile_id: 8 }, { profile_id: '7' })).toBe(false);
  });
});

describe('findOrphans: the one orphan search', () => {
  const sinceMs = Date.parse('2026-11-23T12:00:00Z');
  const at = (ms: number) => new Date(ms).toISOString();
  const create = { at: at(sinceMs), targeting: { country: 'us' } };
  const none = new Set<string>();
  const isOrphanOf = (
    session: RunningSession,
    of: Pick<CreateIntent, 'at' | 'targeting'>,
    known: ReadonlySet<string>,
  ) => findOrphans([session], [of], known).length === 1;

  it('takes a session created since the request left, allowing the clock skew and no more', () => {
    expect(isOrphanOf({ id: 'a', created_at: at(sinceMs + 1000) }, create, none)).toBe(true);
    expect(isOrphanOf({ id: 'a', created_at: at(sinceMs - SKEW_MS) }, create, none)).toBe(true);
    expect(isOrphanOf({ id: 'a', created_at: at(sinceMs - SKEW_MS - 1) }, create, none)).toBe(
      false,
    );
  });

  it('never takes a session some process on this machine knows', () => {
    const session = { id: 'known-1', created_at: at(sinceMs + 1000) };
    expect(isOrphanOf(session, create, new Set(['known-1']))).toBe(false);
  });

  it('never takes a session with other targeting', () => {
    const session = { id: 'b', created_at: at(sinceMs + 1000), config: { country: 'de' } };
    expect(isOrphanOf(session, create, none)).toBe(false);
  });

  it("never takes a session a contested create (a live process's, still on the wire) may have made", () => {
    const session = { id: 'c', created_at: at(sinceMs + 1000), config: { country: 'us' } };
    const contested = (targeting: Record<string, string>, ms = sinceMs) => [
      { at: at(ms), targeting },
    ];
    expect(findOrphans([session], [create], none, contested({ country: 'us' }))).toEqual([]);
    // One that could not have made it contests nothing: other targeting, or sent after it.
    expect(findOrphans([session], [create], none, contested({ country: 'de' }))).toEqual([session]);
    expect(
      findOrphans(
        [session],
        [create],
        none,
        contested({ country: 'us' }, sinceMs + 1000 + SKEW_MS + 1),
      ),
    ).toEqual([session]);
  });

  it('takes, of several running sessions, those any one of several creates may have made, in list order', () => {
    const running: RunningSession[] = [
      { id: 'de-1', created_at: at(sinceMs + 1), config: { country: 'de' } },
      { id: 'old', created_at: at(sinceMs - SKEW_MS - 1), config: { country: 'us' } },
      { id: 'us-1', created_at: at(sinceMs + 2), config: { country: 'us' } },
      { id: 'known', created_at: at(sinceMs + 3), config: { country: 'de' } },
    ];
    const creates = [create, { at: at(sinceMs), targeting: { country: 'de' } }];
    expect(findOrphans(running, creates, new Set(['known'])).map((s) => s.id)).toEqual([
      'de-1',
      'us-1',
    ]);
    expect(findOrphans(running, [], none)).toEqual([]);
  });
});
