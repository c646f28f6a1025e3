/**
 * `cdp_url` carries the session's access token: whoever has it controls the browser. Objects
 * that hold one keep it as a plain, enumerable property (so `session.cdp_url` and spreading
 * work), and get two non-enumerable hooks so that `util.inspect`, `console.log` and
 * `JSON.stringify` print it redacted. The URL is also registered with `redact()`, so a copy that
 * ends up in an error message or a log line is removed there too.
 */
import { inspect } from 'node:util';
import { REDACTED, registerSecret } from '../http/redact.js';

/** `wss://host/[REDACTED]`: the host helps debugging, the path and query may hold the token. */
export function shownCdpUrl(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  try {
    return `${new URL(url).origin.replace(/^null$/, '')}/${REDACTED}`;
  } catch {
    return REDACTED;
  }
}

function printable(value: object): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...value };
  if ('cdp_url' in copy) copy.cdp_url = shownCdpUrl(copy.cdp_url);
  return copy;
}

/** Adds the redacting hooks to `value` (in place) when it holds a `cdp_url`; returns it. */
export function hideCdpUrl<T extends object>(value: T): T {
  const url = (value as { cdp_url?: unknown }).cdp_url;
  if (typeof url !== 'string') return value;
  registerSecret(url);
  Object.defineProperties(value, {
    toJSON: {
      value(this: object) {
        return printable(this);
      },
      enumerable: false,
      configurable: true,
      writable: true,
    },
    [inspect.custom]: {
      value(this: object, _depth: number, options: object, inspectFn: typeof inspect = inspect) {
        return inspectFn(printable(this), options);
      },
      enumerable: false,
      configurable: true,
      writable: true,
    },
  });
  return value;
}

/** `hideCdpUrl` on `value` and on the objects directly inside it (async-create results). */
export function hideCdpUrlsWithin<T extends object>(value: T): T {
  hideCdpUrl(value);
  for (const inner of Object.values(value)) {
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) hideCdpUrl(inner);
  }
  return value;
}
