import { describe, expect, it } from 'vitest';
import { compareGeo, offsetOf, type PageGeo } from '../../src/remote-cdp/geo-check.js';
import type { ResolvedGeo } from '../../src/remote-cdp/geo-resolve.js';

const BERLIN: ResolvedGeo = {
  timezoneId: 'Europe/Berlin',
  locale: 'de-DE',
  languages: ['de-DE', 'de', 'en'],
  acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8',
  geolocation: { latitude: 52.52, longitude: 13.405, accuracy: 5000 },
  source: { country: 'de', level: 'city', place: 'Berlin' },
};
const WINTER = new Date('2026-01-15T12:00:00Z');

const coherent: PageGeo = {
  timeZone: 'Europe/Berlin',
  offsetMinutes: -60,
  intlLocale: 'de-DE',
  language: 'de-DE',
  languages: ['de-DE', 'de', 'en'],
  permission: 'granted',
  position: { latitude: 52.52, longitude: 13.405, accuracy: 5000 },
};

describe('compareGeo', () => {
  it('says a page that agrees with its exit is coherent', () => {
    const check = compareGeo(BERLIN, coherent, 'de-DE,de;q=0.9,en;q=0.8', WINTER);
    expect(check).toMatchObject({ coherent: true, exitCountry: 'de', mismatches: [] });
    expect(check.items.map((i) => [i.name, i.status])).toEqual([
      ['timeZone (Intl)', 'ok'],
      ['timeZone (Date)', 'ok'],
      ['navigator.language', 'ok'],
      ['navigator.languages', 'ok'],
      ['Accept-Language', 'ok'],
      ['Intl locale', 'ok'],
      ['geolocation', 'ok'],
    ]);
  });

  it('names each value of an unhardened machine that disagrees with a German exit', () => {
    const host: PageGeo = {
      timeZone: 'UTC',
      offsetMinutes: 0,
      intlLocale: 'en-US',
      language: 'en-US',
      languages: ['en-US', 'en'],
      permission: 'prompt',
    };
    const check = compareGeo(BERLIN, host, 'en-US,en;q=0.9', WINTER);
    expect(check.coherent).toBe(false);
    expect(check.mismatches).toEqual([
      "timeZone (Intl): UTC, the exit's is Europe/Berlin",
      "timeZone (Date): getTimezoneOffset() 0, the exit's is getTimezoneOffset() -60",
      "navigator.language: en-US, the exit's is de-DE",
      "navigator.languages: en-US,en, the exit's is de-DE,de,en",
      "Accept-Language: en-US,en;q=0.9, the exit's is de-DE,de;q=0.9,en;q=0.8",
      "Intl locale: en-US, the exit's is de-DE",
    ]);
    expect(check.items.at(-1)).toMatchObject({ name: 'geolocation', status: 'skipped' });
  });

  it('flags a position far from the exit, and skips what it did not see', () => {
    const far = { ...coherent, position: { latitude: 40.7, longitude: -74, accuracy: 10 } };
    const check = compareGeo(BERLIN, far, undefined, WINTER);
    expect(check.mismatches).toHaveLength(1);
    expect(check.mismatches[0]).toMatch(/^geolocation: 40\.700,-74\.000 \(\d+ km away\)/);
    expect(check.items.find((i) => i.name === 'Accept-Language')?.status).toBe('skipped');
  });

  it('accepts a language without a region and the summer offset', () => {
    const summer = new Date('2026-07-15T12:00:00Z');
    const page = { ...coherent, offsetMinutes: -120, language: 'de', languages: ['de'] };
    expect(compareGeo(BERLIN, page, 'de', summer).coherent).toBe(true);
  });
});

describe('offsetOf', () => {
  it('follows daylight saving time like getTimezoneOffset()', () => {
    expect(offsetOf('Europe/Berlin', WINTER)).toBe(-60);
    expect(offsetOf('Europe/Berlin', new Date('2026-07-15T12:00:00Z'))).toBe(-120);
    expect(offsetOf('America/Chicago', WINTER)).toBe(360);
    expect(offsetOf('Asia/Kolkata', WINTER)).toBe(-330);
  });
});
