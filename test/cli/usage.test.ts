/**
 * `remote-browser usage` (commands/usage.ts) over a cache dir with a usage journal and a
 * ledger, as earlier runs left them: per day, per run, the timeouts and the running sessions,
 * with no request (no service is configured).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setEnv } from '../helpers/env.js';
import { runCli } from './cli-io.js';

const line = (over: Record<string, unknown>) =>
  JSON.stringify({
    run: 'remote-browser-run-a',
    startedAt: '2026-03-01T10:00:00.000Z',
    endedAt: '2026-03-01T10:02:00.000Z',
    minutes: 2,
    lostMinutes: 0,
    end: 'closed',
    estimated: false,
    ...over,
  });

let dir: string;
let restore: () => void;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rb-cli-usage-'));
  restore = setEnv({ REMOTE_BROWSER_CACHE_DIR: dir });
  writeFileSync(
    join(dir, 'usage.jsonl'),
    [
      line({ id: 'a', minutes: 3, estimated: true }),
      line({ id: 'b', end: 'idle_timeout', minutes: 12, lostMinutes: 10 }),
      // A settled record of `a`: the service's minutes replace the estimate.
      line({ id: 'a', minutes: 2.5 }),
      line({ id: 'c', run: 'pid-42', endedAt: '2026-03-02T08:00:00.000Z', minutes: 1 }),
      '{"torn',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'sessions.jsonl'),
    `${JSON.stringify({ op: 'created', id: 'live', origin: 'http://x', pid: 7, createdAt: '2026-03-02T09:00:00.000Z' })}\n`,
  );
});
afterEach(() => {
  restore();
  rmSync(dir, { recursive: true, force: true });
});

describe('remote-browser usage', () => {
  it('prints sessions and minutes per day and per run, the timeouts and the running ones, as JSON', async () => {
    const r = await runCli(['usage', '--json'], {});
    expect(r.code, r.err).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.days).toEqual([
      { key: '2026-03-01', sessions: 2, minutes: 14.5, lostMinutes: 10, estimated: 0 },
      { key: '2026-03-02', sessions: 1, minutes: 1, lostMinutes: 0, estimated: 0 },
    ]);
    expect(report.runs.map((g: { key: string; sessions: number }) => [g.key, g.sessions])).toEqual([
      ['pid-42', 1],
      ['remote-browser-run-a', 2],
    ]);
    expect(report.timedOut.map((e: { id: string }) => e.id)).toEqual(['b']);
    expect(report.running).toEqual([{ id: 'live', createdAt: '2026-03-02T09:00:00.000Z', pid: 7 }]);
  });

  it('prints the same as tables for a human', async () => {
    const r = await runCli(['usage'], {});
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('per day');
    expect(r.out).toMatch(/2026-03-01\s+2\s+14\.5\s+10\s+0/);
    expect(r.out).toContain('ended by a timeout');
    expect(r.out).toMatch(/b\s+idle_timeout\s+12\s+remote-browser-run-a/);
    expect(r.out).toMatch(/live\s+2026-03-02T09:00:00.000Z\s+7/);
  });
});
