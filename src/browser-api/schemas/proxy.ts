/** Schema of `GET /proxy/options`. */
import { z } from 'zod';

/** `{value, label, default?}`; values are strings so a new option does not break the call. */
export const ProxyOptionItemSchema = z.looseObject({
  value: z.string(),
  label: z.string().optional(),
  default: z.boolean().optional(),
});
export type ProxyOptionItem = z.infer<typeof ProxyOptionItemSchema>;

const items = z.array(ProxyOptionItemSchema);

export const ProxyOptionsSchema = z.looseObject({
  connection_types: items,
  session_types: items,
  protocols: items,
  /** In the service's order: quality, quality_speed, speed, none. */
  filter_modes: items,
  /** Platform configuration a request cannot choose, e.g. `{ quality: 'medium', speed: 'fast' }`. */
  filter_levels: z.record(z.string(), z.unknown()),
  /** @deprecated shape not shown: `true` equals filter_mode `quality`, `false` equals `none`. */
  quality_filter: z.unknown().optional(),
  /** countries, regions, cities, isps, zip-codes. */
  location_levels: z.array(z.string()),
});
export type ProxyOptions = z.infer<typeof ProxyOptionsSchema>;
