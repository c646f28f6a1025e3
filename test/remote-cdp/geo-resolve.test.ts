import { describe, expect, it } from 'vitest';
import {
  COUNTRY_DETAILS,
  COUNTRY_LIST,
  citiesOf,
} from '../../src/emulator/data/location-dataset.js';
import {
  ACCURACY_M,
  acceptLanguageOf,
  exitLocation,
  languagesFor,
  resolveGeo,
} from '../../src/remote-cdp/geo-resolve.js';
import { debugLines } from '../helpers/debug-lines.js';

/** Countries with no IANA zone and no city in any dataset (uninhabited, no exits). */
const NO_ZONE = ['bv', 'hm'];

describe('resolveGeo', () => {
  it('derives Berlin from de/be/berlin: zone, locale, languages, Accept-Language, position', async () => {
    const geo = await resolveGeo('exit', { country: 'de', region: 'be', city: 'berlin' });
    expect(geo).toMatchObject({
      timezoneId: 'Europe/Berlin',
      locale: 'de-DE',
      languages: ['de-DE', 'de', 'en'],
      acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8',
      source: { country: 'de', level: 'city', place: 'Berlin' },
    });
    expect(geo?.geolocation?.latitude).toBeCloseTo(52.52, 1);
    expect(geo?.geolocation?.longitude).toBeCloseTo(13.4, 1);
    expect(geo?.geolocation?.accuracy).toBe(ACCURACY_M.city);
  });

  it('takes a region without a city to its biggest city (us/tx: Houston, America/Chicago)', async () => {
    const geo = await resolveGeo('exit', { country: 'us', region: 'tx' });
    expect(geo).toMatchObject({
      timezoneId: 'America/Chicago',
      locale: 'en-US',
      acceptLanguage: 'en-US,en;q=0.9',
      source: { level: 'region', place: 'Houston' },
    });
    expect(geo?.geolocation?.accuracy).toBe(ACCURACY_M.region);
  });

  it('finds a renamed region by the name it was merged into (fr/ara: Lyon)', async () => {
    const geo = await resolveGeo('exit', { country: 'fr', region: 'ara' });
    expect(geo?.source).toMatchObject({ level: 'region', place: 'Lyon' });
  });

  it('prefers the pinned profile location over the config', async () => {
    const geo = await resolveGeo(
      'exit',
      { country: 'us' },
      { pinned_country: 'jp', pinned_region: '13', pinned_city: 'tokyo' },
    );
    expect(geo).toMatchObject({
      timezoneId: 'Asia/Tokyo',
      locale: 'ja-JP',
      source: { country: 'jp', level: 'city' },
    });
  });

  it('falls back to the next level up with one debug line, never to this machine', async () => {
    let geo: Awaited<ReturnType<typeof resolveGeo>>;
    const lines = await debugLines(async () => {
      geo = await resolveGeo('exit', { country: 'de', region: 'by', city: 'atlantis' });
    }, 'remote-browser:geo');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('city "atlantis" of "de" is not in the dataset; using its region');
    expect(geo!).toMatchObject({
      timezoneId: 'Europe/Berlin',
      source: { level: 'region', place: 'Munich' },
    });
  });

  it('falls back from an unknown region to the country', async () => {
    const geo = await resolveGeo('exit', { country: 'jp', region: 'zz' });
    expect(geo?.source).toMatchObject({ level: 'country', place: 'Tokyo' });
    expect(geo?.timezoneId).toBe('Asia/Tokyo');
  });

  it('derives nothing without a country, whatever this machine says', async () => {
    const geo = await resolveGeo('exit', {});
    expect(geo).toEqual({ source: {} });
  });

  it('is off with false', async () => {
    expect(await resolveGeo(false, { country: 'de' })).toBeUndefined();
  });

  it('keeps explicit fields and derives the others from the exit', async () => {
    const geo = await resolveGeo({ timezoneId: 'Asia/Tokyo' }, { country: 'de' });
    expect(geo).toMatchObject({ timezoneId: 'Asia/Tokyo', locale: 'de-DE' });
    const fr = await resolveGeo({ locale: 'fr-CH' }, { country: 'ch' });
    expect(fr?.acceptLanguage).toBe('fr-CH,fr;q=0.9,de;q=0.8,it;q=0.7,en;q=0.6');
  });

  it('resolves every country, region and city of the emulator dataset', async () => {
    for (const { code } of COUNTRY_LIST) {
      const geo = await resolveGeo('exit', { country: code });
      if (NO_ZONE.includes(code)) {
        expect(geo?.timezoneId, code).toBeUndefined();
        continue;
      }
      expect(geo?.timezoneId, code).toMatch(/^[A-Z][A-Za-z_]+\/[A-Za-z_/+-]+$/);
      expect(
        () => new Intl.DateTimeFormat('en', { timeZone: geo?.timezoneId }),
        code,
      ).not.toThrow();
      if (code !== 'aq') expect(geo?.locale, code).toMatch(/^[a-z]{2}-[A-Z]{2}$/);
    }
    for (const [country, detail] of Object.entries(COUNTRY_DETAILS)) {
      for (const region of detail.regions) {
        const geo = await resolveGeo('exit', { country, region: region.code });
        expect(geo?.geolocation, `${country}/${region.code}`).toBeDefined();
        for (const { city } of citiesOf(country, region.code)) {
          const inCity = await resolveGeo('exit', {
            country,
            region: region.code,
            city: city.code,
          });
          expect(inCity?.geolocation, `${country}/${city.code}`).toBeDefined();
          expect(inCity?.timezoneId, `${country}/${city.code}`).toBe(geo?.timezoneId);
        }
      }
    }
  });
});

describe('exitLocation', () => {
  it('reads config, lowercased, skipping empty fields', () => {
    expect(exitLocation({ country: 'DE', region: '', city: 'berlin' })).toEqual({
      country: 'de',
      city: 'berlin',
    });
  });
});

describe('languages', () => {
  it('orders the locale, its language, the other languages of the country, then English', () => {
    expect(languagesFor('de-CH', ['de', 'fr', 'it'])).toEqual(['de-CH', 'de', 'fr', 'it', 'en']);
    expect(acceptLanguageOf(['de-CH', 'de', 'fr', 'it', 'en'])).toBe(
      'de-CH,de;q=0.9,fr;q=0.8,it;q=0.7,en;q=0.6',
    );
  });
});
