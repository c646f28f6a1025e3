/**
 * Location normalization of result rows, from the emulator's bundled location dataset (a few
 * regions and cities for us, gb, de, fr, jp). A region resolves from its code or its display
 * name, a city from any letter case (or its slug); both come back as display names, and a known
 * city fills in its region. Anything outside the dataset passes through (a city is title-cased).
 */
import { COUNTRY_DETAILS, findCountry } from '../data/location-dataset.js';
import type { ResolvedLocation } from './types.js';

export function isKnownCountry(code: string): boolean {
  return findCountry(code) !== undefined;
}

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase();

const titleCase = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/(^|[\s-])(\p{L})/gu, (_m, sep: string, ch: string) => sep + ch.toUpperCase());

export function normalizeLocation(
  country: string,
  region?: string | null,
  city?: string | null,
): ResolvedLocation {
  const regions = COUNTRY_DETAILS[country]?.regions ?? [];
  const wantedRegion = region ? fold(region) : undefined;
  const matchedRegion = wantedRegion
    ? regions.find((r) => fold(r.code) === wantedRegion || fold(r.name) === wantedRegion)
    : undefined;

  let cityName = city?.trim() ? titleCase(city) : '';
  let regionName = matchedRegion?.name ?? region?.trim() ?? '';
  if (city?.trim()) {
    const wantedCity = fold(city).replace(/\s+/g, ' ');
    const pool = matchedRegion ? [matchedRegion] : regions;
    for (const r of pool) {
      const hit = r.cities.find(
        (c) => fold(c.name) === wantedCity || c.code === wantedCity.replace(/[\s-]+/g, '_'),
      );
      if (hit) {
        cityName = hit.name;
        if (!regionName) regionName = r.name;
        break;
      }
    }
  }
  return { country, region: regionName, city: cityName };
}
