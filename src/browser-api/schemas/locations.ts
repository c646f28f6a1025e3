/** Schemas of `GET /locations/{level}`. */
import { z } from 'zod';
import { type LocationConnectionType, LocationConnectionTypeSchema } from './vocabulary.js';

export const LOCATION_LEVELS = ['countries', 'regions', 'cities', 'isps', 'zip-codes'] as const;
export type LocationLevel = (typeof LOCATION_LEVELS)[number];

const common = {
  connection_type: LocationConnectionTypeSchema.optional(),
  ipv4_only: z.boolean().optional(),
  limit: z.number().int().positive().optional(),
  offset: z.number().int().nonnegative().optional(),
};
const country = z.string().min(1);

/** One query schema per level: the parents each level requires are required here. */
export const LocationParamsSchemas = {
  countries: z.looseObject({ ...common, search: z.string().optional() }),
  regions: z.looseObject({ ...common, country }),
  cities: z.looseObject({ ...common, country, region: z.string().min(1) }),
  isps: z.looseObject({ ...common, country }),
  'zip-codes': z.looseObject({
    ...common,
    country,
    region: z.string().optional(),
    city: z.string().optional(),
  }),
} as const satisfies Record<LocationLevel, z.ZodType>;

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
export const LocationItemSchema = z.looseObject({
  code: z.string(),
  name: z.string(),
  availability: z.string().optional(),
  country_code: z.string().nullish(),
  region_code: z.string().nullish(),
});
export type LocationItem = z.infer<typeof LocationItemSchema>;
