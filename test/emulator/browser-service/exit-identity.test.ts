import { describe, expect, it } from 'vitest';
import { sessionExit } from '../../../src/emulator/browser-service/exit-identity.js';
import type {
  ProfileRecord,
  SessionConfig,
  SessionRecord,
} from '../../../src/emulator/browser-service/model.js';

const config = (over: Partial<SessionConfig>): SessionConfig => ({
  protocol: 'http',
  connection_type: 'residential',
  session_type: 'sticky',
  filter_mode: 'none',
  quality_filter_enabled: false,
  ipv4_only: false,
  profile_name: null,
  profile_id: null,
  ...over,
});

describe('sessionExit', () => {
  it('keeps one 198.51.100.x address for the whole of a sticky session, another for another session', () => {
    const session = { accountId: 'a', id: 's1', config: config({ country: 'de' }) };
    const first = sessionExit(session, undefined)(0);
    expect(first.ip).toMatch(/^198\.51\.100\.([1-9]\d?|1\d\d|2[0-4]\d|25[0-4])$/);
    expect(sessionExit(session, undefined)(5).ip).toBe(first.ip);
    const others = ['s2', 's3', 's4', 's5'].map(
      (id) => sessionExit({ ...session, id }, undefined)(0).ip,
    );
    expect(others.some((ip) => ip !== first.ip)).toBe(true);
    expect(first).toMatchObject({
      country: 'de',
      region: 'be',
      city: 'berlin',
      session_type: 'sticky',
    });
  });

  it('gives a rotating session a 203.0.113.x address per connection', () => {
    const exit = sessionExit(
      { accountId: 'a', id: 's', config: config({ session_type: 'rotating' }) },
      undefined,
    );
    const ips = new Set([0, 1, 2, 3, 4, 5].map((n) => exit(n).ip));
    expect([...ips].every((ip) => ip.startsWith('203.0.113.'))).toBe(true);
    expect(ips.size).toBeGreaterThan(1);
  });

  it("pins a pin_ip profile's sessions to one 192.0.2.x address and the profile's pinned location", () => {
    const pinned = {
      country: 'fr',
      region: 'idf',
      city: 'paris',
      zip: '75001',
      isp: 'orange',
      connection_type: 'residential',
    };
    const profile = { id: 'p1', pinIp: true, pinned };
    const one = sessionExit(
      { accountId: 'a', id: 's1', config: config({ country: 'us' }) },
      profile,
    )(0);
    const two = sessionExit(
      { accountId: 'a', id: 's2', config: config({ session_type: 'rotating' }) },
      profile,
    )(3);
    expect(one.ip).toMatch(/^192\.0\.2\.\d+$/);
    expect(two.ip).toBe(one.ip);
    expect(one).toMatchObject(pinned);
  });

  it("follows a pin_ip profile that pins after the session started, and the session's own exit otherwise", () => {
    const session = {
      id: 's1',
      accountId: 'a',
      config: config({ country: 'de' }),
    } as SessionRecord;
    const profile = { id: 'p1', pinIp: true, pinned: undefined } as ProfileRecord;
    const exit = sessionExit(session, profile);
    expect(exit(0).ip).toMatch(/^192\.0\.2\./);
    expect(exit(0).country).toBe('de');
    profile.pinned = { country: 'fr', region: '', city: '', zip: '', isp: '', connection_type: '' };
    expect(exit(1)).toMatchObject({ ip: exit(0).ip, country: 'fr' });
    expect(sessionExit(session, undefined)(0).ip).toMatch(/^198\.51\.100\./);
  });
});
