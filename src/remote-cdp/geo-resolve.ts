/**
 * The values a session's pages should report so they agree with its exit (issue 35): the IANA
 * time zone, the locale and languages (`navigator.language(s)`, `Intl`'s default locale, the
 * `Accept-Language` header) and a geolocation, derived from the session's resolved targeting
 * (`config`: city, then region, then country; a pinned profile's `pinned_*` first). A level the
 * datasets do not know falls back to the next one up with one debug line; with no country at all
 * nothing is derived (the browser stays as the service made it), never the client machine's values.
 */
import { createDebug } from '../http/debug.js';
import { type GeoData, loadGeoData, type Place } from './geo-data.js';

const debug = createDebug('geo');

export interface GeoPosition {
  latitude: number;
  longitude: number;
  /** Metres. */
  accuracy: number;
}

/** Explicit values for `geo`; a field left out is derived from the exit. */
export interface GeoValues {
  /** IANA time zone, e.g. `Europe/Berlin`. */
  timezoneId?: string;
  /** BCP 47 locale, e.g. `de-DE`; also sets `navigator.language(s)` and `Accept-Language`. */
  locale?: string;
  /**
   * The position served to pages that have the geolocation permission (`accuracy` in metres,
   * default 100).
   */
  geolocation?: { latitude: number; longitude: number; accuracy?: number };
}

/** `accuracy` of an explicit `geo.geolocation` without one, in metres. */
export const DEFAULT_EXPLICIT_ACCURACY_M = 100;

/**
 * `'exit'` (the default): derive the time zone, locale and geolocation from the session's exit;
 * `false`: leave the browser as the service made it; or explicit values (each field left out is
 * still derived from the exit).
 */
export type GeoOption = 'exit' | false | GeoValues;

/** Everything the overrides need, resolved. A field is undefined when nothing could be derived. */
export interface ResolvedGeo {
  timezoneId?: string;
  locale?: string;
  /** `navigator.languages`, most preferred first. */
  languages?: string[];
  /** The header, e.g. `de-DE,de;q=0.9,en;q=0.8`. */
  acceptLanguage?: string;
  geolocation?: GeoPosition;
  /** Where the values came from: the exit's country and the level of the place matched. */
  source: { country?: string; level?: Place['level']; place?: string };
}

/** How far a page may believe it is from the matched place, in metres, by level. */
export const ACCURACY_M: Readonly<Record<Place['level'], number>> = {
  city: 5_000,
  region: 50_000,
  country: 250_000,
};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim().toLowerCase() : undefined;

/** The location the session exits from: a pinned profile's location first, then `config`'s. */
export function exitLocation(
  config: Record<string, unknown>,
  pinned?: Record<string, unknown>,
): { country?: string; region?: string; city?: string } {
  const pinnedCountry = text(pinned?.pinned_country);
  const from = pinnedCountry
    ? { country: pinnedCountry, region: pinned?.pinned_region, city: pinned?.pinned_city }
    : config;
  const country = text(from.country);
  const region = text(from.region);
  const city = text(from.city);
  return {
    ...(country ? { country } : {}),
    ...(region ? { region } : {}),
    ...(city ? { city } : {}),
  };
}

/** City, then region, then country: the first level the datasets know, each miss said once. */
export function findPlace(
  data: GeoData,
  location: { country?: string; region?: string; city?: string },
): Place | undefined {
  const { country, region, city } = location;
  if (!country) return undefined;
  if (city) {
    const found = data.city(country, city, region);
    if (found) return found;
    debug(
      `city "${city}" of "${country}" is not in the dataset; using its ${region ? 'region' : 'country'}`,
    );
  }
  if (region) {
    const found = data.region(country, region);
    if (found) return found;
    debug(`region "${region}" of "${country}" is not in the dataset; using the country`);
  }
  const found = data.country(country);
  if (!found) debug(`country "${country}" has no time zone or city in the dataset`);
  return found;
}

/** The country's usual order: `de-DE,de;q=0.9,en;q=0.8`, English last unless already there. */
export function languagesFor(locale: string, countryLanguages: readonly string[] = []): string[] {
  const base = locale.split('-')[0] ?? locale;
  const list = [locale, base, ...countryLanguages, 'en'];
  return [...new Set(list.filter((l) => l !== ''))];
}

export function acceptLanguageOf(languages: readonly string[]): string {
  return languages
    .map((language, i) => {
      if (i === 0) return language;
      const q = Math.max(0.1, Math.round((1 - i / 10) * 10) / 10);
      return `${language};q=${q.toFixed(1)}`;
    })
    .join(',');
}

/**
 * `geo` with the values a user set elsewhere (a drop-in's `--lang`, `locale`, `timezoneId`,
 * `geolocation` context options) as explicit fields, so they win per field and reach every
 * target the same way; `false` stays off.
 */
export function withUserGeo(option: GeoOption | undefined, user: GeoValues): GeoOption {
  if (option === false) return false;
  const set = Object.entries(user).filter(([, value]) => value !== undefined);
  if (set.length === 0) return option ?? 'exit';
  return { ...(typeof option === 'object' ? option : {}), ...Object.fromEntries(set) };
}

/** Starts loading the datasets while the connect runs, so resolving later waits for nothing. */
export function preloadGeo(option: GeoOption | undefined): void {
  if (option !== false) loadGeoData().catch(() => {});
}

/** The values for a session, from its `geo` option and its resolved targeting. */
export async function resolveGeo(
  option: GeoOption | undefined,
  config: Record<string, unknown>,
  pinned?: Record<string, unknown>,
): Promise<ResolvedGeo | undefined> {
  if (option === false) return undefined;
  const explicit = typeof option === 'object' ? option : {};
  const location = exitLocation(config, pinned);
  if (!location.country) {
    debug('the session has no exit country in its config: only explicit geo values apply');
  }
  const data = location.country ? await loadGeoData() : undefined;
  const place = data ? findPlace(data, location) : undefined;
  const countryLanguages = data && location.country ? data.languages(location.country) : [];
  let locale = explicit.locale;
  if (locale === undefined && location.country) {
    const language = countryLanguages[0];
    if (language === undefined)
      debug(`country "${location.country}" has no language in the dataset`);
    else locale = `${language}-${location.country.toUpperCase()}`;
  }
  const languages = locale ? languagesFor(locale, countryLanguages) : undefined;
  const position =
    place?.latitude !== undefined && place.longitude !== undefined
      ? { latitude: place.latitude, longitude: place.longitude, accuracy: ACCURACY_M[place.level] }
      : undefined;
  const timezoneId = explicit.timezoneId ?? place?.timeZone;
  const geolocation = explicit.geolocation
    ? { accuracy: DEFAULT_EXPLICIT_ACCURACY_M, ...explicit.geolocation }
    : position;
  return {
    ...(timezoneId ? { timezoneId } : {}),
    ...(locale ? { locale } : {}),
    ...(languages ? { languages, acceptLanguage: acceptLanguageOf(languages) } : {}),
    ...(geolocation ? { geolocation } : {}),
    source: {
      ...(location.country ? { country: location.country } : {}),
      ...(place ? { level: place.level, place: place.name } : {}),
    },
  };
}
