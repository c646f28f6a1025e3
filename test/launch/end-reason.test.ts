import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  describeEnd,
  inferEndReason,
  SESSION_WARNING_CODES,
  warnEnd,
} from '../../src/launch/end-reason.js';

const at = (iso: string) => Date.parse(iso);
const created = '2026-01-01T10:00:00.000Z';

describe('inferEndReason', () => {
  it('says maximum lifetime when the session lived its maximum duration', () => {
    const session = { created_at: created, ended_at: '2026-01-01T10:30:01.000Z' };
    expect(inferEndReason(session, {}, at('2026-01-01T10:29:59.000Z'))).toBe('max_duration');
  });

  it("uses the launch's own maximum duration when it asked for one", () => {
    const session = { created_at: created, ended_at: '2026-01-01T10:05:00.000Z' };
    expect(inferEndReason(session, { maxDurationMinutes: 5 }, at(session.ended_at))).toBe(
      'max_duration',
    );
  });

  it('says idle timeout when it ended its idle limit after the last activity seen', () => {
    const session = { created_at: created, ended_at: '2026-01-01T10:12:00.000Z' };
    expect(inferEndReason(session, {}, at('2026-01-01T10:02:00.000Z'))).toBe('idle_timeout');
    expect(inferEndReason(session, { idleTimeoutMinutes: 3 }, at('2026-01-01T10:09:00.000Z'))).toBe(
      'idle_timeout',
    );
  });

  it('says deleted by another client when neither limit explains the end', () => {
    const session = { created_at: created, ended_at: '2026-01-01T10:12:00.000Z' };
    expect(inferEndReason(session, {}, at('2026-01-01T10:11:00.000Z'))).toBe('deleted_elsewhere');
    expect(inferEndReason({ created_at: created, ended_at: null }, {}, 0)).toBe(
      'deleted_elsewhere',
    );
  });
});

describe('describeEnd', () => {
  it('names the session, the reason with its limit, and what to do', () => {
    const end = describeEnd('s-1', 'idle_timeout', { limits: {} });
    expect(end.message).toBe(
      'remote-browser: session s-1 ended by the service: idle timeout (10 min); keep the browser busy, or raise idleTimeoutMinutes (up to the account limit)',
    );
    expect(end.code).toBe(SESSION_WARNING_CODES.ended);
    expect(
      describeEnd('s-1', 'max_duration', { limits: { maxDurationMinutes: 5 } }).message,
    ).toMatch(/maximum lifetime \(5 min\); raise maxDurationMinutes/);
  });

  it('tells a dropped connection how long it is kept and how to re-attach', () => {
    const end = describeEnd('s-2', 'connection_lost', { windowMs: 60_000 });
    expect(end.code).toBe('REMOTE_BROWSER_CONNECTION_LOST');
    expect(end.message).toContain("kept for 60 s: re-attach with connectRemote('s-2')");
  });

  it('has a stable code for every reason', () => {
    const codes = (
      [
        'connection_lost',
        'idle_timeout',
        'max_duration',
        'deleted_elsewhere',
        'gone',
        'window_passed',
        'reattach_failed',
      ] as const
    ).map((reason) => describeEnd('s', reason).code);
    expect(new Set(codes)).toEqual(new Set(Object.values(SESSION_WARNING_CODES)));
  });
});

describe('warnEnd', () => {
  afterEach(() => vi.restoreAllMocks());

  it('emits the line as a RemoteBrowserWarning with its code', () => {
    const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const end = describeEnd('s-3', 'deleted_elsewhere');
    warnEnd(end);
    expect(emit).toHaveBeenCalledWith(end.message, {
      type: 'RemoteBrowserWarning',
      code: 'REMOTE_BROWSER_SESSION_ENDED',
    });
  });
});
