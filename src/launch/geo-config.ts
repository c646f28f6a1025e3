/**
 * The targeting `geo: 'exit'` derives from (issue 35): the `config` the service resolved for the
 * session, from the connection lookup that runs alongside the connect (the create's answer has no
 * `config`), so waiting for it costs no round trip of its own. When that lookup failed, the
 * targeting the launch asked for is the next best answer (connectRemote() asked for none).
 */
import type { GeoOption } from '../remote-cdp/geo-resolve.js';
import type { OpenedSession } from './open-session.js';
import type { RemoteSessionOptions } from './options.js';

const LOCATION = ['country', 'region', 'city'] as const;

export async function sessionConfigOf(
  opened: Pick<OpenedSession, 'lookedUp' | 'info'>,
  asked: RemoteSessionOptions,
): Promise<Record<string, unknown>> {
  await opened.lookedUp;
  const config = opened.info.config;
  if (Object.keys(config).length > 0) return config;
  const fallback: Record<string, unknown> = {};
  for (const key of LOCATION) if (asked[key] !== undefined) fallback[key] = asked[key];
  return fallback;
}

/** What an adapter's startGeo() takes: the session's targeting, `geo` as passed, the profile by name. */
export function geoInputOf(
  opened: Pick<OpenedSession, 'lookedUp' | 'info' | 'profile'>,
  options: RemoteSessionOptions & { geo?: GeoOption | undefined },
): {
  config: Promise<Record<string, unknown>>;
  option: GeoOption | undefined;
  profile?: Record<string, unknown>;
} {
  return {
    config: sessionConfigOf(opened, options),
    option: options.geo,
    ...(opened.profile ? { profile: opened.profile } : {}),
  };
}
