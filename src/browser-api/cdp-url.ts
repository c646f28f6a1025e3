/**
 * `cdp_url` carries the session's access token: whoever has it controls the browser. Objects
 * that hold one print it redacted under `util.inspect` and `JSON.stringify` (see
 * `http/hidden-fields.ts`), showing only the origin, which helps debugging.
 */
import { hideFields } from '../http/hidden-fields.js';
import { REDACTED } from '../http/redact.js';

/** `wss://host/[REDACTED]`: the host helps debugging, the path and query may hold the token. */
export function shownCdpUrl(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  try {
    return `${new URL(url).origin.replace(/^null$/, '')}/${REDACTED}`;
  } catch {
    return REDACTED;
  }
}

const masks = { cdp_url: shownCdpUrl };

/** Adds the redacting hooks to `value` (in place) when it holds a `cdp_url`; returns it. */
export function hideCdpUrl<T extends object>(value: T): T {
  return hideFields(value, masks);
}

/** `hideCdpUrl` on `value` and on the objects directly inside it (async-create results). */
export function hideCdpUrlsWithin<T extends object>(value: T): T {
  hideCdpUrl(value);
  for (const inner of Object.values(value)) {
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) hideCdpUrl(inner);
  }
  return value;
}
