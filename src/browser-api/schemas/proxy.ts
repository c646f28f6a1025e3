/** Schema of `GET /proxy/options`. */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';

/** `{value, label, default?}`; values are strings so a new option does not break the call. */
export const ProxyOptionItemSchema = lazySchema(() =>
  zod().looseObject({
    value: zod().string(),
    label: zod().string().optional(),
    default: zod().boolean().optional(),
  }),
);
export type ProxyOptionItem = z.infer<typeof ProxyOptionItemSchema>;

const items = lazySchema(() => zod().array(ProxyOptionItemSchema));

export const ProxyOptionsSchema = lazySchema(() =>
  zod().looseObject({
    connection_types: items,
    session_types: items,
    protocols: items,
    /** In the service's order: quality, quality_speed, speed, none. */
    filter_modes: items,
    /** Platform configuration a request cannot choose, e.g. `{ quality: 'medium', speed: 'fast' }`. */
    filter_levels: zod().record(zod().string(), zod().unknown()),
    /** @deprecated shape not shown: `true` equals filter_mode `quality`, `false` equals `none`. */
    quality_filter: zod().unknown().optional(),
    /** countries, regions, cities, isps, zip-codes. */
    location_levels: zod().array(zod().string()),
  }),
);
export type ProxyOptions = z.infer<typeof ProxyOptionsSchema>;
