import { describe, expect, it } from 'vitest';
import type { Account, ProfileRecord } from '../../../src/emulator/browser-service/model.js';
import {
  proxyUsernamePreview,
  resolveSessionRequest,
} from '../../../src/emulator/browser-service/targeting.js';
import { DEFAULT_LIMITS } from '../../../src/emulator/options.js';

const account: Account = {
  id: 'acc',
  proxyUser: 'emuuser',
  proxyPassword: 'pp_secret_value',
  apiKey: 'ak',
  purchased: true,
  balance: 1,
  limits: DEFAULT_LIMITS,
  createdAt: 0,
  peakRunningSessions: 0,
};

const resolve = (body: Record<string, unknown>, profiles: ProfileRecord[] = []) =>
  resolveSessionRequest(
    { proxy_password: account.proxyPassword, ...body },
    {
      account,
      findProfile: (id) => profiles.find((p) => p.id === id),
      requirePassword: true,
    },
  );

describe('filter mode resolution', () => {
  it.each([
    [{}, 'quality', true],
    [{ quality_filter_enabled: true }, 'quality', true],
    [{ quality_filter_enabled: false }, 'none', false],
    [{ filter_mode: 'quality' }, 'quality', true],
    [{ filter_mode: 'quality_speed' }, 'quality_speed', true],
    [{ filter_mode: 'speed' }, 'speed', false],
    [{ filter_mode: 'none' }, 'none', false],
    [{ filter_mode: 'quality_speed', quality_filter_enabled: true }, 'quality_speed', true],
    [{ filter_mode: 'speed', quality_filter_enabled: false }, 'speed', false],
  ])('resolves %j to filter_mode %s (quality_filter_enabled %s)', (body, mode, legacy) => {
    const { resolved, issues } = resolve(body);
    expect(issues).toEqual([]);
    expect(resolved.config.filter_mode).toBe(mode);
    expect(resolved.config.quality_filter_enabled).toBe(legacy);
  });

  it.each([
    [{ filter_mode: 'none', quality_filter_enabled: true }],
    [{ filter_mode: 'quality', quality_filter_enabled: false }],
  ])('reports a conflict for %j instead of picking one', (body) => {
    const { issues } = resolve(body);
    expect(issues.map((i) => i.code)).toEqual(['conflicting_quality_filter']);
  });

  it('reports an unsupported filter mode with the four values as suggestion, never a downgrade', () => {
    const { issues, resolved } = resolve({ filter_mode: 'fast' });
    expect(issues).toEqual([
      {
        code: 'unsupported_filter_mode',
        field: 'filter_mode',
        message: expect.stringContaining('"fast"'),
        suggestion: 'Use one of: quality, quality_speed, speed, none',
      },
    ]);
    expect(resolved.config.filter_mode).not.toBe('quality');
  });
});

describe('targeting validation', () => {
  it('applies the documented defaults', () => {
    const { resolved, issues } = resolve({});
    expect(issues).toEqual([]);
    expect(resolved.config).toEqual({
      protocol: 'http',
      connection_type: 'residential',
      session_type: 'sticky',
      filter_mode: 'quality',
      quality_filter_enabled: true,
      ipv4_only: false,
      profile_name: null,
      profile_id: null,
    });
  });

  it('names the field and the allowed values of an unknown protocol, connection or session type', () => {
    const { issues } = resolve({ protocol: 'ftp', connection_type: 'isp', session_type: 'x' });
    expect(issues.map((i) => [i.code, i.field])).toEqual([
      ['unsupported_protocol', 'protocol'],
      ['unsupported_connection_type', 'connection_type'],
      ['unsupported_session_type', 'session_type'],
    ]);
    expect(issues[0]?.message).toContain('http, socks5');
    expect(issues[1]?.message).toContain('residential, mobile');
    expect(issues[2]?.message).toContain('sticky, rotating, no_rotating');
  });

  it('reports wrong JSON types per field', () => {
    const { issues } = resolve({ ipv4_only: 'yes', country: 5, idle_timeout_minutes: -1 });
    expect(issues.map((i) => [i.code, i.field])).toEqual([
      ['invalid_type', 'country'],
      ['invalid_type', 'ipv4_only'],
      ['invalid_type', 'idle_timeout_minutes'],
    ]);
  });

  it('requires the proxy password on create and rejects a wrong one', () => {
    const missing = resolveSessionRequest(
      {},
      { account, findProfile: () => undefined, requirePassword: true },
    );
    expect(missing.issues.map((i) => i.code)).toEqual(['missing_proxy_password']);
    const wrong = resolve({ proxy_password: 'nope' });
    expect(wrong.issues.map((i) => i.code)).toEqual(['invalid_proxy_password']);
    expect(JSON.stringify(wrong.issues)).not.toContain('nope');
  });

  it('lowercases location codes and rejects ones outside the dataset', () => {
    expect(
      resolve({ country: 'US', region: 'CA', city: 'los_angeles' }).resolved.config,
    ).toMatchObject({
      country: 'us',
      region: 'ca',
      city: 'los_angeles',
    });
    expect(resolve({ country: 'zz' }).issues.map((i) => i.code)).toEqual(['unknown_country']);
    expect(resolve({ country: 'us', region: 'xx' }).issues.map((i) => i.code)).toEqual([
      'unknown_region',
    ]);
    expect(resolve({ country: 'br', region: 'sp' }).issues.map((i) => i.code)).toEqual([
      'unknown_region',
    ]);
    expect(resolve({ region: 'ca' }).issues.map((i) => i.code)).toEqual([
      'region_requires_country',
    ]);
  });

  it('omits empty location keys from the config', () => {
    const { resolved } = resolve({ country: 'de', region: '', city: null });
    expect(resolved.config).toHaveProperty('country', 'de');
    expect(resolved.config).not.toHaveProperty('region');
    expect(resolved.config).not.toHaveProperty('city');
  });

  it('takes a pinned profile location and reports a request that contradicts it', () => {
    const profile: ProfileRecord = {
      id: 'p1',
      accountId: 'acc',
      name: 'pinned',
      description: '',
      createdAt: 0,
      pinIp: true,
      storeCache: false,
      pinned: {
        country: 'gb',
        region: 'eng',
        city: 'london',
        isp: 'bt',
        zip: 'ec1a',
        connection_type: 'residential',
      },
    };
    const ok = resolve({ profile_id: 'p1' }, [profile]);
    expect(ok.issues).toEqual([]);
    expect(ok.resolved.config).toMatchObject({
      country: 'gb',
      city: 'london',
      profile_name: 'pinned',
      profile_id: 'p1',
    });
    const clash = resolve({ profile_id: 'p1', country: 'us' }, [profile]);
    expect(clash.issues.map((i) => i.code)).toEqual(['conflicts_with_pinned_profile']);
  });
});

describe('proxy username preview', () => {
  it.each([
    ['quality', 'emuuser-country-us-region-ca-sid-abcd1234-filter-medium-source-browser'],
    [
      'quality_speed',
      'emuuser-country-us-region-ca-sid-abcd1234-filter-medium-speed-fast-source-browser',
    ],
    ['speed', 'emuuser-country-us-region-ca-sid-abcd1234-speed-fast-source-browser'],
    ['none', 'emuuser-country-us-region-ca-sid-abcd1234-source-browser'],
  ])('adds the %s filter tokens', (mode, expected) => {
    expect(
      proxyUsernamePreview(
        'emuuser',
        { country: 'us', region: 'ca', filter_mode: mode },
        'abcd1234',
      ),
    ).toBe(expected);
  });

  it('puts city, zip and isp tokens after the region, and no location tokens for a broad exit', () => {
    expect(
      proxyUsernamePreview(
        'u',
        {
          country: 'us',
          region: 'ny',
          city: 'new_york',
          zip: '10001',
          isp: 'comcast',
          filter_mode: 'none',
        },
        's',
      ),
    ).toBe('u-country-us-region-ny-city-new_york-zip-10001-isp-comcast-sid-s-source-browser');
    expect(proxyUsernamePreview('u', { filter_mode: 'none' }, 's')).toBe('u-sid-s-source-browser');
  });
});
