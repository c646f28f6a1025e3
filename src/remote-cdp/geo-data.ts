/**
 * Where a location is, from maintained datasets (issue 35 item 3), never a hand-written table:
 *
 * - `city-timezones` (7,300 cities with population, coordinates, IANA zone, province, ISO
 *   country): a city's zone and coordinates, and the biggest city of a region or country as its
 *   stand-in;
 * - `iso-3166` (every ISO 3166-2 subdivision with its name): a region code (`by`, the service's
 *   lowercase suffix of `DE-BY`) to the name the city dataset files its cities under (`Bayern`);
 * - `countries-list` (ISO 639-1 languages per country, in the country's order): the languages;
 * - `countries-and-timezones` (the IANA zones per country): the zone of a country the city
 *   dataset has no city for.
 *
 * They load on the first session that asks (a dynamic import: an entry that never launches pays
 * nothing, and dist stays small: the data is a dependency, not bundled).
 */
import type { CityData } from 'city-timezones';

export interface Place {
  /** The level that matched: a city, a region (its biggest city), or a country (its biggest city). */
  level: 'city' | 'region' | 'country';
  /** The dataset's name of the matched city or stand-in. */
  name: string;
  timeZone: string;
  latitude?: number;
  longitude?: number;
}

export interface GeoData {
  /** The city `slug` (e.g. `los_angeles`, `new_york`) in `country`, preferring `region`. */
  city(country: string, slug: string, region?: string): Place | undefined;
  /** The biggest city of `region` (ISO 3166-2 suffix) in `country`. */
  region(country: string, region: string): Place | undefined;
  /** The biggest city of `country`, else its first IANA zone (no coordinates). */
  country(country: string): Place | undefined;
  /** The country's languages (ISO 639-1), most spoken first; empty when unknown. */
  languages(country: string): string[];
}

/** Lowercase ASCII letters and digits only: `Île-de-France` and `ile_de_france` compare equal. */
export function normalizeName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

interface Sources {
  cities: readonly CityData[];
  subdivisions: ReadonlyArray<{ code: string; name: string }>;
  countries: Readonly<Record<string, { languages?: readonly string[] } | undefined>>;
  zonesOf(country: string): readonly string[];
}

let loaded: Promise<GeoData> | undefined;

/** The datasets, loaded once per process. */
export function loadGeoData(): Promise<GeoData> {
  loaded ??= (async () => {
    const [cityTimezones, iso, list, ct] = await Promise.all([
      import('city-timezones'),
      import('iso-3166'),
      import('countries-list'),
      import('countries-and-timezones'),
    ]);
    const cities = (cityTimezones.default ?? cityTimezones).cityMapping;
    const timezones = ct.default ?? ct;
    return geoData({
      cities,
      subdivisions: iso.iso31662,
      countries: list.countries as Sources['countries'],
      zonesOf: (country) => timezones.getCountry(country.toUpperCase())?.timezones ?? [],
    });
  })();
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

function geoData(sources: Sources): GeoData {
  const byCountry = new Map<string, CityData[]>();
  for (const city of sources.cities) {
    // A few stations (Antarctica) have no zone: a city without one is no use here.
    if (typeof city.timezone !== 'string' || city.timezone === '') continue;
    const list = byCountry.get(city.iso2) ?? [];
    list.push(city);
    byCountry.set(city.iso2, list);
  }
  // Biggest first: the stand-in of a region or country is its most populous city.
  for (const list of byCountry.values()) list.sort((a, b) => b.pop - a.pop);
  const citiesOf = (country: string) => byCountry.get(country.toUpperCase()) ?? [];
  const place = (level: Place['level'], city: CityData): Place => ({
    level,
    name: city.city,
    timeZone: city.timezone,
    latitude: city.lat,
    longitude: city.lng,
  });

  /** The cities filed under the subdivision `region` of `country` (by its ISO name). */
  const citiesOfRegion = (country: string, region: string): CityData[] => {
    const code = `${country}-${region}`.toUpperCase();
    const subdivision = sources.subdivisions.find((s) => s.code === code);
    if (!subdivision) return [];
    const wanted = normalizeName(subdivision.name);
    const all = citiesOf(country);
    const exact = all.filter((c) => normalizeName(c.province) === wanted);
    if (exact.length > 0) return exact;
    // A renamed or merged region (`Auvergne-Rhône-Alpes` holds the dataset's `Rhône-Alpes`).
    return all.filter((c) => {
      const province = normalizeName(c.province);
      return province.length > 3 && (wanted.includes(province) || province.includes(wanted));
    });
  };

  return {
    city(country, slug, region) {
      const wanted = normalizeName(slug);
      const matches = citiesOf(country).filter(
        (c) => normalizeName(c.city) === wanted || normalizeName(c.city_ascii) === wanted,
      );
      if (matches.length === 0) return undefined;
      const inRegion = region === undefined ? [] : citiesOfRegion(country, region);
      const best = matches.find((c) => inRegion.includes(c)) ?? matches[0];
      return best && place('city', best);
    },
    region(country, region) {
      const biggest = citiesOfRegion(country, region)[0];
      return biggest && place('region', biggest);
    },
    country(country) {
      const biggest = citiesOf(country)[0];
      if (biggest) return place('country', biggest);
      const zone = sources.zonesOf(country)[0];
      return zone === undefined ? undefined : { level: 'country', name: country, timeZone: zone };
    },
    languages(country) {
      return [...(sources.countries[country.toUpperCase()]?.languages ?? [])];
    },
  };
}
