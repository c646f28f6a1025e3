import type { CallOptions } from '../../http/call-options.js';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { parseWire } from '../../http/request-validation.js';
import { Resource } from '../../http/resource.js';
import type { QueryValue } from '../../http/transport.js';
import {
  type CityParams,
  type CountryParams,
  type IspParams,
  LocationItemSchema,
  type LocationLevel,
  LocationParamsSchemas,
  type RegionParams,
  type ZipCodeParams,
} from '../schemas/locations.js';
import { LocationsPage } from './locations-page.js';

const ItemsSchema = lazySchema(() => zod().array(LocationItemSchema));

export class Locations extends Resource {
  countries(params: CountryParams = {}, opts: CallOptions = {}): LocationsPage {
    return this.#level('countries', params, opts);
  }

  /** Requires `country`. */
  regions(params: RegionParams, opts: CallOptions = {}): LocationsPage {
    return this.#level('regions', params, opts);
  }

  /** Requires `country` and `region`. */
  cities(params: CityParams, opts: CallOptions = {}): LocationsPage {
    return this.#level('cities', params, opts);
  }

  /** Requires `country`. */
  isps(params: IspParams, opts: CallOptions = {}): LocationsPage {
    return this.#level('isps', params, opts);
  }

  /** Requires `country`; `region` and `city` narrow the list. */
  zipCodes(params: ZipCodeParams, opts: CallOptions = {}): LocationsPage {
    return this.#level('zip-codes', params, opts);
  }

  #level(level: LocationLevel, params: object | undefined, opts: CallOptions): LocationsPage {
    const what = `locations.${level === 'zip-codes' ? 'zipCodes' : level}`;
    let query: Record<string, unknown> = {};
    let error: unknown;
    try {
      query = parseWire(what, LocationParamsSchemas[level], params ?? {}, 'params');
    } catch (caught) {
      error = caught;
    }
    return new LocationsPage(
      (page, call) =>
        this.transport.request({
          ...call,
          what,
          method: 'GET',
          path: `/locations/${level}`,
          query: { ...(query as Record<string, QueryValue>), ...page },
          schema: ItemsSchema,
        }),
      query as { limit?: number; offset?: number },
      opts,
      error,
    );
  }
}
