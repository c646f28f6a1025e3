/**
 * The emulator's bundled location dataset: every country, and regions, cities, zip codes and
 * ISPs for a handful of them (us, gb, de, fr, jp). Codes are lowercase: countries are ISO 3166-1
 * alpha-2 (as the account API spells them), regions the ISO 3166-2 suffix, cities a snake_case
 * slug, ISPs a slug. Enough to exercise every targeting path offline; not a real inventory.
 */
import { countries } from 'countries-list';

export interface CityData {
  code: string;
  name: string;
  zips: readonly string[];
}

export interface RegionData {
  code: string;
  name: string;
  cities: readonly CityData[];
}

export interface CountryDetail {
  regions: readonly RegionData[];
  isps: ReadonlyArray<{ code: string; name: string }>;
}

const city = (code: string, name: string, zips: string[]): CityData => ({ code, name, zips });

export const COUNTRY_DETAILS: Readonly<Record<string, CountryDetail>> = {
  us: {
    regions: [
      {
        code: 'ca',
        name: 'California',
        cities: [
          city('los_angeles', 'Los Angeles', ['90001', '90012', '90028']),
          city('san_francisco', 'San Francisco', ['94102', '94103', '94110']),
          city('san_diego', 'San Diego', ['92101', '92103']),
        ],
      },
      {
        code: 'ny',
        name: 'New York',
        cities: [
          city('new_york', 'New York', ['10001', '10002', '10003']),
          city('buffalo', 'Buffalo', ['14201', '14202']),
        ],
      },
      {
        code: 'tx',
        name: 'Texas',
        cities: [
          city('houston', 'Houston', ['77001', '77002']),
          city('austin', 'Austin', ['73301', '78701']),
          city('dallas', 'Dallas', ['75201', '75202']),
        ],
      },
      {
        code: 'fl',
        name: 'Florida',
        cities: [
          city('miami', 'Miami', ['33101', '33125']),
          city('orlando', 'Orlando', ['32801', '32803']),
        ],
      },
      {
        code: 'wa',
        name: 'Washington',
        cities: [city('seattle', 'Seattle', ['98101', '98104'])],
      },
    ],
    isps: [
      { code: 'comcast', name: 'Comcast Cable' },
      { code: 'att', name: 'AT&T Services' },
      { code: 'verizon', name: 'Verizon Business' },
      { code: 'charter', name: 'Charter Communications' },
      { code: 'tmobile', name: 'T-Mobile USA' },
    ],
  },
  gb: {
    regions: [
      {
        code: 'eng',
        name: 'England',
        cities: [
          city('london', 'London', ['ec1a', 'sw1a', 'w1a']),
          city('manchester', 'Manchester', ['m1', 'm2']),
        ],
      },
      {
        code: 'sct',
        name: 'Scotland',
        cities: [
          city('edinburgh', 'Edinburgh', ['eh1', 'eh2']),
          city('glasgow', 'Glasgow', ['g1']),
        ],
      },
      {
        code: 'wls',
        name: 'Wales',
        cities: [city('cardiff', 'Cardiff', ['cf10', 'cf11'])],
      },
    ],
    isps: [
      { code: 'bt', name: 'British Telecommunications' },
      { code: 'virgin_media', name: 'Virgin Media' },
      { code: 'sky', name: 'Sky Broadband' },
    ],
  },
  de: {
    regions: [
      {
        code: 'be',
        name: 'Berlin',
        cities: [city('berlin', 'Berlin', ['10115', '10117', '10119'])],
      },
      {
        code: 'by',
        name: 'Bavaria',
        cities: [
          city('munich', 'Munich', ['80331', '80333']),
          city('nuremberg', 'Nuremberg', ['90402', '90403']),
        ],
      },
      {
        code: 'he',
        name: 'Hesse',
        cities: [city('frankfurt', 'Frankfurt am Main', ['60311', '60313'])],
      },
    ],
    isps: [
      { code: 'deutsche_telekom', name: 'Deutsche Telekom' },
      { code: 'vodafone_de', name: 'Vodafone Germany' },
      { code: 'o2_de', name: 'Telefonica Germany' },
    ],
  },
  fr: {
    regions: [
      {
        code: 'idf',
        name: 'Île-de-France',
        cities: [city('paris', 'Paris', ['75001', '75002', '75008'])],
      },
      {
        code: 'ara',
        name: 'Auvergne-Rhône-Alpes',
        cities: [city('lyon', 'Lyon', ['69001', '69002'])],
      },
      {
        code: 'pac',
        name: "Provence-Alpes-Côte d'Azur",
        cities: [
          city('marseille', 'Marseille', ['13001', '13002']),
          city('nice', 'Nice', ['06000']),
        ],
      },
    ],
    isps: [
      { code: 'orange', name: 'Orange' },
      { code: 'free', name: 'Free SAS' },
      { code: 'sfr', name: 'SFR' },
    ],
  },
  jp: {
    regions: [
      {
        code: '13',
        name: 'Tokyo',
        cities: [city('tokyo', 'Tokyo', ['100-0001', '150-0001'])],
      },
      {
        code: '27',
        name: 'Osaka',
        cities: [city('osaka', 'Osaka', ['530-0001', '542-0081'])],
      },
      {
        code: '14',
        name: 'Kanagawa',
        cities: [city('yokohama', 'Yokohama', ['220-0011'])],
      },
    ],
    isps: [
      { code: 'ntt', name: 'NTT Communications' },
      { code: 'kddi', name: 'KDDI' },
      { code: 'softbank', name: 'SoftBank' },
    ],
  },
};

export interface Country {
  code: string;
  name: string;
}

/**
 * Every ISO 3166-1 alpha-2 country (249), lowercase as the APIs use, with its common English
 * name, from the maintained `countries-list` (which the geo overrides read too): its entries
 * less the codes ISO 3166-1 has not assigned (`xk` is user-assigned; `ac` and `ta` are only
 * reserved).
 */
export const COUNTRY_LIST: readonly Country[] = Object.entries(countries)
  .filter(([code, country]) => !('userAssigned' in country) && code !== 'AC' && code !== 'TA')
  .map(([code, { name }]) => ({ code: code.toLowerCase(), name }));

const countryByCode = new Map(COUNTRY_LIST.map((country) => [country.code, country]));

export function findCountry(code: string): Country | undefined {
  return countryByCode.get(code);
}

export function findRegion(country: string, region: string): RegionData | undefined {
  return COUNTRY_DETAILS[country]?.regions.find((r) => r.code === region);
}

/** Cities of a country, optionally of one region, each with its region code. */
export function citiesOf(
  country: string,
  region?: string,
): Array<{ region: string; city: CityData }> {
  const regions = COUNTRY_DETAILS[country]?.regions ?? [];
  return regions
    .filter((r) => region === undefined || r.code === region)
    .flatMap((r) => r.cities.map((c) => ({ region: r.code, city: c })));
}
