/**
 * One line saying what to change when the configured URL is the problem: nothing listening, a
 * TLS client against a plain-HTTP server, a host that does not resolve, or a server that
 * answers but is not the API (a wrong path in the URL). Without it the user sees a raw socket
 * error, or a 404 on a call they never made (the launch's preflight).
 */
import { errorCode } from './retry-policy.js';

export type ServiceKind = 'browser' | 'account';

const URL_VAR: Record<ServiceKind, string> = {
  browser: 'REMOTE_BROWSER_URL',
  account: 'REMOTE_BROWSER_ACCOUNT_URL',
};

/** A hint for a request that got no response, or undefined when the cause is not the URL. */
export function connectionHint(
  service: ServiceKind,
  origin: string,
  error: unknown,
): string | undefined {
  const code = errorCode(error);
  const text = `${(error as Error)?.message ?? ''} ${String((error as { cause?: Error })?.cause?.message ?? '')}`;
  const envVar = URL_VAR[service];
  if (code === 'ECONNREFUSED') {
    return `nothing is listening at ${origin}: start the service (for a local emulator: \`remote-browser emulator\`) or correct ${envVar}`;
  }
  if (
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' ||
    /wrong version number|packet length too long|http request/i.test(text)
  ) {
    return `${origin} does not speak TLS: use ${origin.replace(/^https:/, 'http:')} in ${envVar}`;
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `the host of ${origin} does not resolve: check ${envVar}`;
  }
  return undefined;
}

/**
 * A 404 from a route every deployment has (no identifier in it), or a 404 whose body is not the
 * API's JSON error: the URL points at a server that is not this API.
 */
export function notTheApiHint(
  service: ServiceKind,
  base: string,
  staticRoute: boolean,
  body: unknown,
): string | undefined {
  const apiShaped =
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    Object.values(body).some((v) => typeof v === 'string' || Array.isArray(v));
  if (!staticRoute && apiShaped) return undefined;
  const apiPath = service === 'browser' ? '/api/v2/browser' : '/api/v2/base';
  return `${base} does not look like the ${service} service's API (it has no such route): set ${URL_VAR[service]} to the service origin (e.g. https://host, without a path; the client appends ${apiPath})`;
}

/**
 * A transport's `notFoundHint` for a service whose routes without an identifier are
 * `staticRoutes` (a trailing `*` matches a prefix): a 404 there, or one whose body is not the
 * API's JSON error, says the configured URL (`base`, the origin and API path) is not the API.
 */
export function notFoundHintFor(
  service: ServiceKind,
  base: string,
  staticRoutes: readonly string[],
): (path: string, body: unknown) => string | undefined {
  const isStatic = (path: string) =>
    staticRoutes.some((route) =>
      route.endsWith('*') ? path.startsWith(route.slice(0, -1)) : path === route,
    );
  return (path, body) => notTheApiHint(service, base, isStatic(path), body);
}
