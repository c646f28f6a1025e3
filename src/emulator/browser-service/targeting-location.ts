/**
 * Location part of the targeting: country, region, city, zip and isp checked against the bundled
 * dataset, lowercased, each one inside its parent.
 */
import { COUNTRY_DETAILS, citiesOf, findCountry, findRegion } from '../data/location-dataset.js';
import { type Issue, issue, type SessionBody } from './targeting-issue.js';

/** A code as the dataset spells it; blank counts as omitted. */
const lower = (value: string | undefined) =>
  value !== undefined && value.trim() !== '' ? value.trim().toLowerCase() : undefined;

/** The location of a body the client's schema read (`readSessionBody`), checked against the dataset. */
export function resolveLocation(
  body: SessionBody,
  issues: Issue[],
): Partial<Record<string, string>> {
  const country = lower(body.country);
  const region = lower(body.region);
  const city = lower(body.city);
  const zip = lower(body.zip);
  const isp = lower(body.isp);
  const out: Partial<Record<string, string>> = {};
  if (country !== undefined) {
    if (!findCountry(country)) {
      issues.push(
        issue(
          'unknown_country',
          'country',
          `country "${country}" is not a known country code`,
          'Use a lowercase ISO 3166-1 code from GET /locations/countries, e.g. us',
        ),
      );
      return out;
    }
    out.country = country;
  }
  for (const [field, value] of [
    ['region', region],
    ['city', city],
    ['zip', zip],
    ['isp', isp],
  ] as const) {
    if (value === undefined || country !== undefined) continue;
    issues.push(
      issue(`${field}_requires_country`, field, `${field} needs a country`, 'Add country'),
    );
    return out;
  }
  if (country === undefined) return out;
  if (region !== undefined) {
    if (findRegion(country, region)) out.region = region;
    else issues.push(unknownIn('region', region, country, 'regions'));
  }
  const cities = citiesOf(country, out.region);
  if (city !== undefined) {
    if (cities.some((c) => c.city.code === city)) out.city = city;
    else issues.push(unknownIn('city', city, country, 'cities'));
  }
  if (zip !== undefined) {
    const zips = cities.filter((c) => !out.city || c.city.code === out.city);
    if (zips.some((c) => c.city.zips.includes(zip))) out.zip = zip;
    else issues.push(unknownIn('zip', zip, country, 'zip-codes'));
  }
  if (isp !== undefined) {
    if (COUNTRY_DETAILS[country]?.isps.some((i) => i.code === isp)) out.isp = isp;
    else issues.push(unknownIn('isp', isp, country, 'isps'));
  }
  return out;
}

function unknownIn(field: string, value: string, country: string, level: string): Issue {
  return issue(
    `unknown_${field}`,
    field,
    `${field} "${value}" is not available in country "${country}"`,
    `Use a code from GET /locations/${level}?country=${country}`,
  );
}
