/**
 * The exit a `pin_ip` profile is pinned to, taken from the first session that uses it. The
 * emulator has no real exit IP, so a location the request left open is filled from the
 * dataset (the first region, city, zip and ISP that fit what was asked), as a real exit has one.
 */
import { COUNTRY_DETAILS, citiesOf } from '../data/location-dataset.js';
import type { PinnedLocation, SessionConfig } from './model.js';

/** Where a session without a country exits in the emulator. */
const DEFAULT_EXIT_COUNTRY = 'us';

export function pinFromConfig(config: SessionConfig): PinnedLocation {
  const country = config.country ?? DEFAULT_EXIT_COUNTRY;
  const match = citiesOf(country, config.region).find(
    (c) =>
      (config.city === undefined || c.city.code === config.city) &&
      (config.zip === undefined || c.city.zips.includes(config.zip)),
  );
  return {
    country,
    region: config.region ?? match?.region ?? '',
    city: config.city ?? match?.city.code ?? '',
    zip: config.zip ?? match?.city.zips[0] ?? '',
    isp: config.isp ?? COUNTRY_DETAILS[country]?.isps[0]?.code ?? '',
    connection_type: config.connection_type,
  };
}
