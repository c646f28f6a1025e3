/**
 * Validate-before-launch: `/configurations/validate` uses the same logic as session creation,
 * so a config that fails here would fail (or be billed wrongly) there. Results are cached per
 * service origin and config per client (a caller's client keeps its own for its life); a
 * failed call is not cached.
 */
import type { BrowserApi, ValidationResult } from '../browser-api/index.js';
import type { CallOptions } from '../http/call-options.js';
import { nodeCrypto } from '../http/node-builtins.js';
import { PreflightError, type PreflightIssue } from './errors.js';
import { toValidateParams, type WireSessionFields } from './to-wire.js';
import { clientKey, OWN_CLIENTS } from './tracker.js';

/** Preflight results by `origin key`, per client (`clientKey`); a failed check is removed again. */
const caches = new WeakMap<object, Map<string, Promise<PreflightIssue[]>>>();

/**
 * Forgets the cached preflight results of launches without an `api` (after the account's
 * targeting changed). A caller's own client keeps its cache for its life.
 */
export function clearPreflightCache(): void {
  caches.get(OWN_CLIENTS)?.clear();
}

/**
 * The one key of "this targeting was checked in this mode": the fields `/configurations/validate`
 * reads, plus the city in strict mode (only the location check reads it). A short hash, so it
 * can travel in an environment variable (the fixture's global setup → its workers) and holds no
 * secret.
 */
export function preflightKey(wire: WireSessionFields, mode: true | 'strict'): string {
  const checked: Record<string, string> = { ...toValidateParams(wire) };
  if (mode === 'strict' && typeof wire.city === 'string') checked.city = wire.city;
  const text = JSON.stringify([mode, Object.entries(checked).sort()]);
  return nodeCrypto().createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Checks the targeting (cached per origin and key); throws a PreflightError listing every issue. */
export async function preflight(
  api: BrowserApi,
  wire: WireSessionFields,
  mode: true | 'strict',
  what: string,
  call: CallOptions,
): Promise<void> {
  const params = toValidateParams(wire);
  const cache = caches.get(clientKey(api)) ?? new Map<string, Promise<PreflightIssue[]>>();
  caches.set(clientKey(api), cache);
  const key = `${api.origin} ${preflightKey(wire, mode)}`;
  let pending = cache.get(key);
  if (!pending) {
    pending = check(api, wire, params, mode, call).then((checked) => checked.issues);
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  const issues = await pending;
  if (issues.length > 0) throw new PreflightError(what, issues);
}

/**
 * The check `preflight()` runs, uncached and without throwing: the service's result (with its
 * proxy username preview) and the issues a launch would fail with. For the CLI's `validate`.
 */
export function checkTargeting(
  api: BrowserApi,
  wire: WireSessionFields,
  mode: true | 'strict',
  call: CallOptions = {},
): Promise<{ result: ValidationResult; issues: PreflightIssue[] }> {
  return check(api, wire, toValidateParams(wire), mode, call);
}

async function check(
  api: BrowserApi,
  wire: WireSessionFields,
  params: Record<string, string>,
  mode: true | 'strict',
  call: CallOptions,
): Promise<{ result: ValidationResult; issues: PreflightIssue[] }> {
  const result = await api.configurations.validate(params, call);
  const issues: PreflightIssue[] = (result.issues ?? []).map((i) => ({
    code: i.code,
    field: i.field,
    message: i.message,
    suggestion:
      typeof i.suggestion === 'string'
        ? i.suggestion
        : i.suggestion == null
          ? undefined
          : JSON.stringify(i.suggestion),
  }));
  if (!result.valid && issues.length === 0) {
    issues.push({
      code: 'invalid',
      field: '(config)',
      message: 'the service reported the config as invalid',
      suggestion: undefined,
    });
  }
  if (issues.length === 0 && mode === 'strict')
    issues.push(...(await checkLocations(api, wire, call)));
  return { result, issues };
}

async function contains(
  items: AsyncIterable<{ code: string; name: string }>,
  value: string,
): Promise<boolean> {
  const wanted = value.toLowerCase();
  for await (const item of items) {
    if (item.code.toLowerCase() === wanted || item.name.toLowerCase() === wanted) return true;
  }
  return false;
}

/** `preflight: 'strict'`: every location name must exist in the location endpoints. */
async function checkLocations(
  api: BrowserApi,
  wire: WireSessionFields,
  call: CallOptions,
): Promise<PreflightIssue[]> {
  const issues: PreflightIssue[] = [];
  const connection_type = wire.connection_type;
  const { country, region, city } = wire as { country?: string; region?: string; city?: string };
  if (
    country &&
    !(await contains(api.locations.countries({ search: country, connection_type }, call), country))
  ) {
    issues.push({
      code: 'unknown_country',
      field: 'country',
      message: `"${country}" is not a country of the location list`,
      suggestion: 'see `api.locations.countries()`',
    });
    return issues;
  }
  if (
    country &&
    region &&
    !(await contains(api.locations.regions({ country, connection_type }, call), region))
  ) {
    issues.push({
      code: 'unknown_region',
      field: 'region',
      message: `"${region}" is not a region of ${country}`,
      suggestion: `see \`api.locations.regions({ country: '${country}' })\``,
    });
    return issues;
  }
  if (
    country &&
    city &&
    region &&
    !(await contains(api.locations.cities({ country, region, connection_type }, call), city))
  ) {
    issues.push({
      code: 'unknown_city',
      field: 'city',
      message: `"${city}" is not a city of ${country}/${region}`,
      suggestion: `see \`api.locations.cities({ country: '${country}', region: '${region}' })\``,
    });
  }
  return issues;
}
