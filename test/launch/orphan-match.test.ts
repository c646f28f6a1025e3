/**
 * Which running session a lost create may have left: the rule the exit hooks, the watchdog
 * child and reap all apply before ending a session nobody here knows about. Ending a
 * stranger's session is the failure to avoid; each condition is checked on its own.
 */
import { describe, expect, it } from 'vitest';
import { isOrphanOf, SKEW_MS, sameTargeting, targetingOf } from '../../src/launch/orphan-match.js';

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

describe('isOrphanOf', () => {
  const sinceMs = Date.parse('2026-11-23T12:00:00Z');
  const create = { sinceMs, targeting: { country: 'us' } };
  const at = (ms: number) => new Date(ms).toISOString();
  const none = new Set<string>();

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
});
