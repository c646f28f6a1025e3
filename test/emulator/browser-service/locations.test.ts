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

describe('locations', () => {
  it('lists every ISO 3166-1 country with lowercase codes in one default page', async () => {
    const res = await api('GET', '/locations/countries');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(249);
    expect(res.body.data).toContainEqual({
      code: 'us',
      name: 'United States',
      availability: 'high',
      country_code: 'us',
      region_code: '',
    });
  });

  it('searches countries by code or name, case-insensitively', async () => {
    const byName = await api('GET', '/locations/countries?search=germ');
    expect(byName.body.data.map((c: any) => c.code)).toEqual(['de']);
    const byCode = await api('GET', '/locations/countries?search=JP');
    expect(byCode.body.data.map((c: any) => c.code)).toContain('jp');
  });

  it('pages with limit and offset and rejects out-of-range values', async () => {
    const page = await api('GET', '/locations/countries?limit=2&offset=1');
    expect(page.body.data).toHaveLength(2);
    for (const bad of ['limit=0', 'limit=1001', 'limit=abc', 'offset=-1', 'offset=1.5']) {
      const res = await api('GET', `/locations/countries?${bad}`);
      expect(res.status, bad).toBe(400);
    }
    expect((await api('GET', '/locations/countries?offset=999')).body.data).toEqual([]);
  });

  it('lists regions, cities, isps and zip codes under their parents', async () => {
    const regions = await api('GET', '/locations/regions?country=us');
    expect(regions.body.data).toContainEqual({
      code: 'ca',
      name: 'California',
      availability: 'high',
      country_code: 'us',
      region_code: 'ca',
    });
    const cities = await api('GET', '/locations/cities?country=us&region=ny');
    expect(cities.body.data.map((c: any) => c.code)).toEqual(['new_york', 'buffalo']);
    expect(cities.body.data[0]).toMatchObject({ country_code: 'us', region_code: 'ny' });
    const isps = await api('GET', '/locations/isps?country=de&connection_type=isp');
    expect(isps.body.data.map((i: any) => i.code)).toContain('deutsche_telekom');
    const zips = await api('GET', '/locations/zip-codes?country=us&region=ny&city=new_york');
    expect(zips.body.data.map((z: any) => z.code)).toEqual(['10001', '10002', '10003']);
    expect((await api('GET', '/locations/regions?country=br')).body.data).toEqual([]);
  });

  it('answers a missing parent with 400 naming it', async () => {
    const regions = await api('GET', '/locations/regions');
    expect(regions.status).toBe(400);
    expect(regions.body.error).toContain('country');
    const cities = await api('GET', '/locations/cities?country=us');
    expect(cities.status).toBe(400);
    expect(cities.body.error).toContain('region');
  });

  it('answers bad filters, an unknown country and search below countries with 400', async () => {
    expect((await api('GET', '/locations/countries?connection_type=satellite')).status).toBe(400);
    expect((await api('GET', '/locations/countries?ipv4_only=maybe')).status).toBe(400);
    expect(
      (await api('GET', '/locations/countries?ipv4_only=true&connection_type=mobile')).status,
    ).toBe(200);
    expect((await api('GET', '/locations/regions?country=zz')).status).toBe(400);
    expect((await api('GET', '/locations/regions?country=us&search=ca')).status).toBe(400);
  });

  it('answers an unknown level with 404', async () => {
    expect((await api('GET', '/locations/planets')).status).toBe(404);
  });

  it('answers 503 with reason and retry_after when locations are configured off', async () => {
    const off = await startFakeEmulator({ locations: false });
    try {
      const res = await client(off.url, off.token)('GET', '/locations/countries');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        error: expect.any(String),
        reason: 'locations_not_configured',
        retry_after: expect.any(Number),
      });
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      await off.close();
    }
  });
});
