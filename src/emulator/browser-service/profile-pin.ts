/**
 * The exit a `pin_ip` profile is pinned to, taken from the first session that uses it. The
 * emulator has no real exit IP, so a location the request left open is filled from the
 * dataset (its first region, city, zip and ISP), as a real exit would have one.
 */
import { COUNTRY_DETAILS } from '../data/locations.js';
import type { PinnedLocation, SessionConfig } from '../model.js';

/** Where a session without a country exits in the emulator. */
const DEFAULT_EXIT_COUNTRY = 'us';

export function pinFromConfig(config: SessionConfig): PinnedLocation {
  const country = config.country ?? DEFAULT_EXIT_COUNTRY;
  const detail = COUNTRY_DETAILS[country];
  const region =
    detail?.regions.find((r) => r.code === config.region) ??
    (config.region ? undefined : detail?.regions[0]);
  const city =
    region?.cities.find((c) => c.code === config.city) ??
    (config.city ? undefined : region?.cities[0]);
  return {
    country,
    region: config.region ?? region?.code ?? '',
    city: config.city ?? city?.code ?? '',
    zip: config.zip ?? city?.zips[0] ?? '',
    isp: config.isp ?? detail?.isps[0]?.code ?? '',
    connection_type: config.connection_type,
  };
}
