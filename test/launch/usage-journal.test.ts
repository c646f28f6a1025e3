/**
 * The usage journal (usage-journal.ts): an ended session's line, the last line of a session
 * winning, running sessions left out, and the file kept to its last lines once it grows.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionUsage } from '../../src/launch/usage.js';
import { COMPACT_PAST_BYTES, journalEnded, readJournal } from '../../src/launch/usage-journal.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const journal = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rb-journal-'));
  dirs.push(dir);
  return join(dir, 'nested', 'usage.jsonl');
};

const session = (id: string, over: Partial<SessionUsage> = {}): SessionUsage => ({
  id,
  source: 'created',
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: '2026-01-01T00:01:00.000Z',
  minutes: 1,
  estimated: true,
  end: 'closed',
  lostMinutes: 0,
  slotWaitMinutes: 0,
  reattaches: 0,
  pid: 1,
  ...over,
});

describe('the usage journal', () => {
  it('keeps the last line of each ended session, and none of a running one', () => {
    const path = journal();
    journalEnded(session('a'), 'run-1', path);
    journalEnded(session('b', { end: null, endedAt: null }), 'run-1', path);
    journalEnded(session('a', { minutes: 1.25, estimated: false }), 'run-1', path);
    expect(readJournal(path)).toEqual([
      {
        id: 'a',
        run: 'run-1',
        startedAt: '2026-01-01T00:00:00.000Z',
        endedAt: '2026-01-01T00:01:00.000Z',
        minutes: 1.25,
        lostMinutes: 0,
        end: 'closed',
        estimated: false,
      },
    ]);
  });

  it('is kept to its last lines once it grows past its bound', () => {
    const path = journal();
    const big = 'x'.repeat(300);
    const count = Math.ceil(COMPACT_PAST_BYTES / 350) + 10;
    for (let i = 0; i < count; i++) journalEnded(session(`s${i}`), big, path);
    expect(statSync(path).size).toBeLessThanOrEqual(COMPACT_PAST_BYTES);
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThan(count);
    expect(JSON.parse(lines.at(-1) ?? '{}').id).toBe(`s${count - 1}`);
  });
});
