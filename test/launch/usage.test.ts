/**
 * The usage recorder (usage.ts) on a hand-moved clock: every way a session ends, re-attaches,
 * pre-warms, slot waits, the service's record replacing the estimate, and credits with refunds.
 */
import { describe, expect, it } from 'vitest';
import type { EndedBy } from '../../src/launch/ledger.js';
import { type SessionUsage, UsageRecorder } from '../../src/launch/usage.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-01-01T10:00:00.000Z');

function recorder() {
  let now = T0;
  const rec = new UsageRecorder(() => now);
  return {
    rec,
    advance(ms: number) {
      now += ms;
    },
    session(id: string): SessionUsage {
      const found = rec.usage().sessions.find((s) => s.id === id);
      if (!found) throw new Error(`no session ${id}`);
      return found;
    },
  };
}

describe('UsageRecorder', () => {
  it('counts a closed session from its create to its end, as an estimate on this clock', () => {
    const { rec, advance, session } = recorder();
    rec.created('a');
    rec.opened('a');
    advance(2 * MINUTE);
    expect(session('a')).toMatchObject({ minutes: 2, end: null, endedAt: null });
    expect(rec.usage().totals.running).toBe(1);
    advance(MINUTE);
    rec.ended('a', 'close');
    advance(10 * MINUTE);
    expect(session('a')).toMatchObject({
      source: 'created',
      minutes: 3,
      end: 'closed',
      estimated: true,
      lostMinutes: 0,
      startedAt: new Date(T0).toISOString(),
      endedAt: new Date(T0 + 3 * MINUTE).toISOString(),
    });
    expect(rec.usage().totals).toMatchObject({ sessions: 1, running: 0, minutes: 3 });
  });

  it("replaces the estimate with the service's created_at and ended_at", () => {
    const { rec, advance, session } = recorder();
    rec.created('a');
    advance(MINUTE);
    rec.ended('a', 'close');
    expect(rec.unsettled()).toEqual(['a']);
    rec.serviceRecord('a', {
      created_at: '2026-01-01T09:00:00.000Z',
      ended_at: '2026-01-01T09:15:30.000Z',
    });
    expect(session('a')).toMatchObject({ minutes: 15.5, estimated: false });
    expect(rec.unsettled()).toEqual([]);
    expect(rec.usage().totals.estimated).toBe(false);
  });

  it('keeps a running session an estimate when the service has no ended_at yet', () => {
    const { rec, session } = recorder();
    rec.created('a');
    rec.serviceRecord('a', { created_at: '2026-01-01T09:59:00.000Z', ended_at: null });
    expect(session('a')).toMatchObject({ estimated: true, startedAt: '2026-01-01T09:59:00.000Z' });
  });

  it.each<[string, EndedBy, string]>([
    ['closed', 'close', 'closed'],
    ['the watchdog', 'watchdog', 'watchdog'],
    ['reap', 'reap', 'reap'],
    ['a hand-over', 'kept', 'kept'],
    ['found gone', 'gone', 'gone'],
  ])('says a session ended by %s', (_name, by, end) => {
    const { rec, session } = recorder();
    rec.created('a');
    rec.ended('a', by);
    expect(session('a').end).toBe(end);
  });

  it('says a session ended by the exit hooks once they run', () => {
    const { rec, session } = recorder();
    rec.created('a');
    rec.created('b');
    rec.ended('a', 'close');
    rec.exiting();
    rec.ended('b', 'close');
    expect([session('a').end, session('b').end]).toEqual(['closed', 'exit_hooks']);
  });

  it.each([
    ['idle_timeout', 'idle_timeout'],
    ['max_duration', 'max_duration'],
    ['deleted_elsewhere', 'deleted_elsewhere'],
    ['gone', 'gone'],
    ['window_passed', 'dropped'],
    ['reattach_failed', 'dropped'],
    ['budget', 'budget'],
  ] as const)('a reason said before the end (%s) is how it ended', (reason, end) => {
    const { rec, session } = recorder();
    rec.created('a');
    rec.cause('a', 'connection_lost');
    rec.cause('a', reason);
    rec.ended('a', reason === 'gone' ? 'gone' : 'close');
    expect(session('a').end).toBe(end);
  });

  it('counts the minutes from the last activity to an idle timeout as lost', () => {
    const { rec, advance, session } = recorder();
    rec.created('a');
    advance(MINUTE);
    rec.touched('a');
    advance(10 * MINUTE);
    rec.cause('a', 'idle_timeout');
    rec.ended('a', 'gone');
    expect(session('a')).toMatchObject({ minutes: 11, lostMinutes: 10, end: 'idle_timeout' });
    expect(rec.usage().totals).toMatchObject({ lostMinutes: 10, timedOut: 1 });
  });

  it("puts the last activity on the service's clock when its record arrives", () => {
    const { rec, advance, session } = recorder();
    rec.created('a');
    advance(2 * MINUTE);
    rec.touched('a');
    rec.serviceRecord('a', {
      created_at: '2026-01-01T08:00:00.000Z',
      ended_at: '2026-01-01T08:32:00.000Z',
    });
    rec.cause('a', 'max_duration');
    rec.ended('a', 'gone');
    expect(session('a')).toMatchObject({ minutes: 32, lostMinutes: 30, end: 'max_duration' });
  });

  it('counts a session it did not create as re-attached, and each re-attach of a dropped one', () => {
    const { rec, session } = recorder();
    rec.opened('other');
    rec.created('a');
    rec.opened('a');
    rec.reattached('a');
    rec.reattached('a');
    expect(session('other')).toMatchObject({ source: 'reattached', reattaches: 0 });
    expect(session('a')).toMatchObject({ source: 'created', reattaches: 2 });
    expect(rec.usage().totals.sessions).toBe(2);
  });

  it('counts all of an unused pre-warm as lost, and nothing of a used one', () => {
    const { rec, advance } = recorder();
    rec.created('warm-unused');
    rec.prewarm('warm-unused', 'unused');
    rec.created('warm-used');
    rec.prewarm('warm-used', 'unused');
    rec.prewarm('warm-used', 'used');
    advance(3 * MINUTE);
    rec.ended('warm-unused', 'close');
    rec.ended('warm-used', 'close');
    const { totals, sessions } = rec.usage();
    expect(sessions.map((s) => [s.id, s.prewarm, s.lostMinutes])).toEqual([
      ['warm-unused', 'unused', 3],
      ['warm-used', 'used', 0],
    ]);
    expect(totals).toMatchObject({ unusedPrewarms: 1, lostMinutes: 3, minutes: 6 });
  });

  it('adds the slot wait (429) to its session and to the totals', () => {
    const { rec } = recorder();
    rec.created('a', 30_000);
    rec.waited('a', 60_000);
    expect(rec.usage().totals.slotWaitMinutes).toBe(1.5);
  });

  it('counts an end once: a second end of the same session changes nothing', () => {
    const { rec, advance, session } = recorder();
    rec.created('a');
    advance(MINUTE);
    rec.ended('a', 'close');
    advance(MINUTE);
    rec.cause('a', 'budget');
    rec.ended('a', 'watchdog');
    expect(session('a')).toMatchObject({ end: 'closed', minutes: 1 });
  });

  it('tells its listeners each end once, with the final minutes', () => {
    const { rec, advance } = recorder();
    const heard: [string, number][] = [];
    rec.listen({ ended: (s) => heard.push([s.id, s.minutes]) });
    rec.created('a');
    advance(MINUTE);
    rec.ended('a', 'close');
    rec.ended('a', 'close');
    rec.ended('unknown', 'close');
    expect(heard).toEqual([['a', 1]]);
  });

  it('counts credits charged and each failed row refunded once, never past the charge', () => {
    const { rec } = recorder();
    rec.charged('r1', 2);
    rec.charged('r2', 1);
    expect(rec.refunded('r1', 'row-1')).toBe(true);
    expect(rec.refunded('r1', 'row-1')).toBe(false);
    expect(rec.refunded('r1', 'row-2')).toBe(true);
    expect(rec.refunded('r1', 'row-3')).toBe(false);
    expect(rec.refunded('unknown', 'row-1')).toBe(false);
    const { totals, queries } = rec.usage();
    expect(totals.credits).toEqual({ charged: 3, refunded: 2, net: 1 });
    expect(queries).toEqual([
      { requestId: 'r1', charged: 2, refunded: 2 },
      { requestId: 'r2', charged: 1, refunded: 0 },
    ]);
  });
});
