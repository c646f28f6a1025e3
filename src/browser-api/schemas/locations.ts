/** Schemas of `GET /locations/{level}`. */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { type LocationConnectionType, LocationConnectionTypeSchema } from './vocabulary.js';

export const LOCATION_LEVELS = ['countries', 'regions', 'cities', 'isps', 'zip-codes'] as const;
export type LocationLevel = (typeof LOCATION_LEVELS)[number];

const common = lazySchema(() => ({
  connection_type: LocationConnectionTypeSchema.optional(),
  ipv4_only: zod().boolean().optional(),
  limit: zod().number().int().positive().optional(),
  offset: zod().number().int().nonnegative().optional(),
}));
const country = lazySchema(() => zod().string().min(1));

/** One query schema per level: the parents each level requires are required here. */
export const LocationParamsSchemas = lazySchema(
  () =>
    ({
      countries: zod().looseObject({ ...common, search: zod().string().optional() }),
      regions: zod().looseObject({ ...common, country }),
      cities: zod().looseObject({ ...common, country, region: zod().string().min(1) }),
      isps: zod().looseObject({ ...common, country }),
      'zip-codes': zod().looseObject({
        ...common,
        country,
        region: zod().string().optional(),
        city: zod().string().optional(),
      }),
    }) as const satisfies Record<LocationLevel, z.ZodType>,
);

interface LocationQuery {
  /** Default (server): `residential`. */
  connection_type?: LocationConnectionType;
  ipv4_only?: boolean;
  /**
   * Items per page. Default: the service's for a single page; 100 when iterating with
   * `for await`, which needs a known page size to tell the last (short) page.
   */
  limit?: number;
  /** Items to skip. Default 0. */
  offset?: number;
}
export interface CountryParams extends LocationQuery {
  /** Filter by code or name. */
  search?: string;
}
export interface RegionParams extends LocationQuery {
  country: string;
}
export interface CityParams extends LocationQuery {
  country: string;
  region: string;
}
export interface IspParams extends LocationQuery {
  country: string;
}
export interface ZipCodeParams extends LocationQuery {
  country: string;
  /** Narrows the list. */
  region?: string;
  /** Narrows the list. */
  city?: string;
}

/** `availability` is any string: the spec shows only the value `high`. */
export const LocationItemSchema = lazySchema(() =>
  zod().looseObject({
    code: zod().string(),
    name: zod().string(),
    availability: zod().string().optional(),
    country_code: zod().string().nullish(),
    region_code: zod().string().nullish(),
  }),
);
export type LocationItem = z.infer<typeof LocationItemSchema>;
