import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

let emu: FakeEmulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  emu = await startFakeEmulator();
  api = client(emu.url, emu.token);
});
afterAll(async () => {
  await emu.close();
});

describe('proxy options', () => {
  it('serves the vocabulary with defaults, the filter modes in order and the location levels', async () => {
    const { body } = await api('GET', '/proxy/options');
    const data = body.data;
    expect(data.connection_types).toEqual([
      { value: 'residential', label: expect.any(String), default: true },
      { value: 'mobile', label: expect.any(String) },
    ]);
    expect(data.session_types.map((i: any) => i.value)).toEqual([
      'sticky',
      'rotating',
      'no_rotating',
    ]);
    expect(data.session_types[0].default).toBe(true);
    expect(data.protocols.map((i: any) => [i.value, i.default ?? false])).toEqual([
      ['http', true],
      ['socks5', false],
    ]);
    expect(data.filter_modes.map((i: any) => i.value)).toEqual([
      'quality',
      'quality_speed',
      'speed',
      'none',
    ]);
    expect(data.filter_levels).toEqual({ quality: 'medium', speed: 'fast' });
    expect(data.quality_filter).toMatchObject({ deprecated: true, default: true });
    expect(data.location_levels).toEqual(['countries', 'regions', 'cities', 'isps', 'zip-codes']);
  });
});

describe('configuration validation', () => {
  it('reports a clean config with issues null, normalized defaults and the username preview', async () => {
    const res = await api('POST', '/configurations/validate', {
      body: { country: 'US', region: 'ca' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      valid: true,
      normalized: {
        country: 'us',
        region: 'ca',
        city: null,
        zip: null,
        isp: null,
        protocol: 'http',
        connection_type: 'residential',
        session_type: 'sticky',
        filter_mode: 'quality',
        quality_filter: true,
        ipv4_only: false,
      },
      issues: null,
      proxy_username_preview: expect.stringMatching(
        /^emu[0-9a-f]{8}-country-us-region-ca-sid-[0-9a-f]{8}-filter-medium-source-browser$/,
      ),
    });
  });

  it('reports an unsupported filter mode as an issue with a 200, never as an error status', async () => {
    const res = await api('POST', '/configurations/validate', { body: { filter_mode: 'turbo' } });
    expect(res.status).toBe(200);
    expect(res.body.data.valid).toBe(false);
    expect(res.body.data.normalized.filter_mode).toBeNull();
    expect(res.body.data.issues).toEqual([
      {
        code: 'unsupported_filter_mode',
        field: 'filter_mode',
        message: expect.any(String),
        suggestion: expect.stringContaining('quality, quality_speed, speed, none'),
      },
    ]);
  });

  it('reports unknown locations and wrong types as issues', async () => {
    const res = await api('POST', '/configurations/validate', {
      body: { country: 'us', region: 'zz', ipv4_only: 'yes' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.issues.map((i: any) => i.code)).toEqual([
      'invalid_type',
      'unknown_region',
    ]);
  });

  it('answers malformed JSON with 400', async () => {
    const res = await api('POST', '/configurations/validate', {
      rawBody: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
  });

  it('previews the same filter tokens the options endpoint names as levels', async () => {
    const levels = (await api('GET', '/proxy/options')).body.data.filter_levels;
    const res = await api('POST', '/configurations/validate', {
      body: { filter_mode: 'quality_speed' },
    });
    expect(res.body.data.proxy_username_preview).toContain(
      `-filter-${levels.quality}-speed-${levels.speed}-source-browser`,
    );
  });

  it('validates what creates: the same body is accepted by POST /sessions', async () => {
    const body = { country: 'gb', region: 'eng', city: 'london', filter_mode: 'speed' };
    expect((await api('POST', '/configurations/validate', { body })).body.data.valid).toBe(true);
    const created = await api('POST', '/sessions', {
      body: { ...body, proxy_password: emu.proxyPassword },
    });
    expect(created.status).toBe(200);
    await api('DELETE', `/sessions/${created.body.data.id}`);
  });

  it.each([
    ['region', { country: 'us', region: 'California' }],
    ['city', { country: 'us', region: 'ca', city: 'Los Angeles' }],
    ['zip', { country: 'us', region: 'ca', city: 'los_angeles', zip: '10001' }],
    ['isp', { country: 'us', isp: 'Comcast Cable' }],
  ])('refuses a %s the create refuses, with the same message', async (field, body) => {
    const checked = (await api('POST', '/configurations/validate', { body })).body.data;
    expect(checked.valid).toBe(false);
    expect(checked.issues.map((i: any) => i.field)).toEqual([field]);
    expect(checked.normalized[field]).toBeNull();
    const created = await api('POST', '/sessions', {
      body: { ...body, proxy_password: emu.proxyPassword },
    });
    expect(created.status).toBe(400);
    expect(created.body.error).toBe(checked.issues[0].message);
  });

  it('normalizes city, zip and isp and previews their tokens in the username', async () => {
    const body = { country: 'us', region: 'ca', city: 'Los_Angeles', zip: '90001', isp: 'comcast' };
    const data = (await api('POST', '/configurations/validate', { body })).body.data;
    expect(data.valid).toBe(true);
    expect(data.normalized).toMatchObject({ city: 'los_angeles', zip: '90001', isp: 'comcast' });
    expect(data.proxy_username_preview).toMatch(
      /-country-us-region-ca-city-los_angeles-zip-90001-isp-comcast-sid-[0-9a-f]{8}-/,
    );
  });
});
