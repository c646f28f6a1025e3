/** The body of `http://exit.test/` (issue 35 item 6). */
import { resolveGeo } from '../../remote-cdp/geo-resolve.js';
import type { ExitIdentity } from '../runtime/types.js';

/**
 * What `exit.test` answers: the identity plus where an IP geolocation database would place the
 * exit (its time zone and coordinates, from the same maintained datasets the library derives
 * `geo` from; omitted for a location they do not know).
 */
export async function exitAnswer(
  identity: ExitIdentity,
): Promise<ExitIdentity & { time_zone?: string; latitude?: number; longitude?: number }> {
  const geo = await resolveGeo('exit', { ...identity }).catch(() => undefined);
  return {
    ...identity,
    ...(geo?.timezoneId ? { time_zone: geo.timezoneId } : {}),
    ...(geo?.geolocation
      ? { latitude: geo.geolocation.latitude, longitude: geo.geolocation.longitude }
      : {}),
  };
}
