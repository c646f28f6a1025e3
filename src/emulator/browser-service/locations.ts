/** `GET /locations/{level}` over the bundled dataset (`../data/location-dataset.ts`). */

import type { z } from 'zod';
import {
  LOCATION_LEVELS,
  LocationItemSchema,
  type LocationLevel,
  LocationParamsSchemas,
} from '../../browser-api/schemas/locations.js';
import { LocationConnectionTypeSchema } from '../../browser-api/schemas/vocabulary.js';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import {
  COUNTRY_DETAILS,
  COUNTRY_LIST,
  citiesOf,
  findCountry,
  findRegion,
} from '../data/location-dataset.js';
import { badRequest, HttpError, unavailable } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { data, digits, parseQuery } from '../server/wire.js';
import { authenticate } from './auth.js';
import type { BrowserServiceContext } from './context.js';

/** Page size when `limit` is absent (every country fits in one page), and the largest accepted. */
export const LOCATIONS_DEFAULT_LIMIT = 250;
export const LOCATIONS_MAX_LIMIT = 1000;
/** What a client is told when locations are configured off. */
export const LOCATIONS_OFF_RETRY_AFTER_SECONDS = 60;

/** An item of the client's `LocationItemSchema`, with every field the emulator fills. */
export type LocationItem = z.input<typeof LocationItemSchema> & {
  availability: 'high';
  country_code: string;
  region_code: string;
};

const item = (code: string, name: string, country: string, region = ''): LocationItem => ({
  code,
  name,
  availability: 'high',
  country_code: country,
  region_code: region,
});

/** Parents each level needs: a missing one is a 400 naming it. */
const REQUIRED: Record<LocationLevel, string[]> = {
  countries: [],
  regions: ['country'],
  cities: ['country', 'region'],
  isps: ['country'],
  'zip-codes': ['country'],
};

export function listLocations(level: LocationLevel, query: URLSearchParams): LocationItem[] {
  const get = (key: string) => query.get(key)?.trim().toLowerCase() || undefined;
  const missing = REQUIRED[level].filter((key) => get(key) === undefined);
  if (missing.length > 0) throw badRequest(`${level} requires ${missing.join(' and ')}`);
  const search = get('search');
  if (search !== undefined && level !== 'countries') {
    throw badRequest('search is only supported for countries');
  }
  const country = get('country');
  if (country && !findCountry(country)) {
    throw badRequest(`country "${country}" is not a known country code`);
  }
  const region = get('region');
  if (region && !findRegion(country as string, region)) {
    throw badRequest(`region "${region}" is not available in country "${country}"`);
  }
  switch (level) {
    case 'countries':
      return COUNTRY_LIST.filter(
        (c) => !search || c.code.includes(search) || c.name.toLowerCase().includes(search),
      ).map((c) => item(c.code, c.name, c.code));
    case 'regions':
      return (COUNTRY_DETAILS[country as string]?.regions ?? []).map((r) =>
        item(r.code, r.name, country as string, r.code),
      );
    case 'cities':
      return citiesOf(country as string, region).map((c) =>
        item(c.city.code, c.city.name, country as string, c.region),
      );
    case 'isps':
      return (COUNTRY_DETAILS[country as string]?.isps ?? []).map((i) =>
        item(i.code, i.name, country as string),
      );
    case 'zip-codes': {
      const city = get('city');
      return citiesOf(country as string, region)
        .filter((c) => city === undefined || c.city.code === city)
        .flatMap((c) => c.city.zips.map((zip) => item(zip, zip, country as string, c.region)));
    }
  }
}

/**
 * The filters and paging every level takes, read from the strings sent by the client's rules
 * (`LocationParamsSchemas`), the server's largest page added.
 */
const FilterSchema = lazySchema(() => {
  const { shape } = LocationParamsSchemas.countries;
  return zod().object({
    connection_type: shape.connection_type,
    ipv4_only: zod().enum(['true', 'false', '1', '0']).optional(),
    limit: digits()
      .pipe(shape.limit.unwrap().max(LOCATIONS_MAX_LIMIT))
      .default(LOCATIONS_DEFAULT_LIMIT),
    offset: digits().pipe(shape.offset.unwrap()).default(0),
  });
});

export function registerLocationRoutes(routes: RouteRegistrar, ctx: BrowserServiceContext): void {
  routes.add('GET', '/locations/:level', ({ req, params, query }) => {
    authenticate(ctx, req);
    const level = params.level as LocationLevel;
    if (!LOCATION_LEVELS.includes(level)) {
      throw new HttpError(404, `Unknown location level; use one of: ${LOCATION_LEVELS.join(', ')}`);
    }
    if (!ctx.options.locations) {
      throw unavailable(
        'locations_not_configured',
        LOCATIONS_OFF_RETRY_AFTER_SECONDS,
        'Location data is not configured for this deployment',
      );
    }
    const { limit, offset } = parseQuery(FilterSchema, query, {
      connection_type: `connection_type must be one of: ${LocationConnectionTypeSchema.options.join(', ')}`,
      ipv4_only: 'ipv4_only must be true or false',
      limit: `limit must be an integer from 1 to ${LOCATIONS_MAX_LIMIT}`,
      offset: 'offset must be an integer >= 0',
    });
    const page = listLocations(level, query).slice(offset, offset + limit);
    return data(zod().array(LocationItemSchema), page);
  });
}
