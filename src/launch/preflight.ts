/**
 * Validate-before-launch: `/configurations/validate` uses the same logic as session creation,
 * so the whole targeting goes there (city, zip and isp included) and a config that passes is one
 * the create accepts. Location values are codes (`los_angeles`); one given by its display name
 * (`Los Angeles`) fails here with its code in the suggestion, never mapped behind the caller's
 * back. Results are cached per service origin and config per client (a caller's client keeps its own
 * for its life); a failed call is not cached.
 */
import type { BrowserApi, ValidationResult } from '../browser-api/index.js';
import type { CallOptions } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import { isBadRequestError } from '../http/errors.js';
import { nodeCrypto } from '../http/node-builtins.js';
import { PreflightError, type PreflightIssue } from './errors.js';
import { toValidateParams, type WireSessionFields } from './to-wire.js';
import { clientKey, OWN_CLIENTS } from './tracker.js';

/** Preflight results by `origin key`, per client (`clientKey`); a failed check is removed again. */
const caches = new WeakMap<object, Map<string, Promise<PreflightIssue[]>>>();

const debug = createDebug('launch');

/** The location fields, parents first. */
const LOCATION_FIELDS = ['country', 'region', 'city', 'zip', 'isp'] as const;
/** Targeting fields the create reads that the spec does not list for `/configurations/validate`. */
const UNLISTED_FIELDS = ['city', 'zip', 'isp'] as const;

/**
 * Forgets the cached preflight results of launches without an `api` (after the account's
 * targeting changed). A caller's own client keeps its cache for its life.
 */
export function clearPreflightCache(): void {
  caches.get(OWN_CLIENTS)?.clear();
}

/**
 * The one key of "this targeting was checked in this mode": the fields `/configurations/validate`
 * reads, and the mode. A short hash, so it can travel in an environment variable (the fixture's
 * global setup → its workers) and holds no secret.
 */
export function preflightKey(wire: WireSessionFields, mode: true | 'strict'): string {
  const text = JSON.stringify([mode, Object.entries(toValidateParams(wire)).sort()]);
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
  const { result, unseen } = await validate(api, params, call);
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
  if (issues.length > 0) return { result, issues: await withCodes(api, wire, issues, call) };
  // Strict: every location field against the lists; otherwise only those validate did not see.
  const listed = mode === 'strict' ? LOCATION_FIELDS : unseen;
  if (listed.length > 0) issues.push(...(await checkLocations(api, wire, listed, call)));
  return { result, issues };
}

/**
 * `/configurations/validate` with the whole targeting. The spec lists only some of its fields
 * ("other accepted fields: not shown"): a deployment that answers 400 to the others is asked
 * again with the listed ones, and the fields it did not see are returned (`unseen`) for the
 * location-list check.
 */
async function validate(
  api: BrowserApi,
  params: Record<string, string>,
  call: CallOptions,
): Promise<{ result: ValidationResult; unseen: readonly LocationField[] }> {
  try {
    return { result: await api.configurations.validate(params, call), unseen: [] };
  } catch (error) {
    const unseen = UNLISTED_FIELDS.filter((field) => params[field] !== undefined);
    if (!isBadRequestError(error) || unseen.length === 0) throw error;
    const listed = Object.fromEntries(
      Object.entries(params).filter(
        ([key]) => !(UNLISTED_FIELDS as readonly string[]).includes(key),
      ),
    );
    debug(
      `preflight: ${api.origin} answered 400 to ${unseen.join(', ')} in /configurations/validate; ` +
        `validating the other fields and checking ${unseen.join(', ')} against the location lists`,
    );
    return { result: await api.configurations.validate(listed, call), unseen };
  }
}

type LocationField = (typeof LOCATION_FIELDS)[number];
type Codes = Partial<Record<LocationField, string>>;
type Place = { code: string; name: string };

/**
 * Looks `value` up in a list, in any case: `'code'` when it is an item's code, the item when it
 * is only an item's display name, `undefined` when it is neither.
 */
async function locate(
  items: AsyncIterable<Place>,
  value: string,
): Promise<'code' | Place | undefined> {
  const wanted = value.trim().toLowerCase();
  let named: Place | undefined;
  for await (const item of items) {
    if (item.code.trim().toLowerCase() === wanted) return 'code';
    if (named === undefined && item.name.trim().toLowerCase() === wanted) named = item;
  }
  return named;
}

/** The list a location field's values come from, inside its parents; none when a parent is missing. */
function listOf(
  api: BrowserApi,
  field: LocationField,
  parents: Codes,
  connection_type: WireSessionFields['connection_type'],
  call: CallOptions,
): AsyncIterable<Place> | undefined {
  const { country, region, city } = parents;
  if (field === 'country') {
    return api.locations.countries({ search: country, connection_type }, call);
  }
  if (country === undefined) return undefined;
  if (field === 'region') return api.locations.regions({ country, connection_type }, call);
  if (field === 'isp') return api.locations.isps({ country, connection_type }, call);
  if (field === 'zip') {
    return api.locations.zipCodes({ country, region, city, connection_type }, call);
  }
  return region === undefined
    ? undefined
    : api.locations.cities({ country, region, connection_type }, call);
}

const LIST_CALL: Record<LocationField, (parents: Codes) => string> = {
  country: () => 'api.locations.countries()',
  region: (p) => `api.locations.regions({ country: '${p.country}' })`,
  city: (p) => `api.locations.cities({ country: '${p.country}', region: '${p.region}' })`,
  zip: (p) => `api.locations.zipCodes({ country: '${p.country}' })`,
  isp: (p) => `api.locations.isps({ country: '${p.country}' })`,
};

function codeSuggestion(field: string, name: string, code: string): string {
  return `use the code "${code}": "${name}" is the ${field}'s display name, the service takes codes`;
}

/**
 * The service takes codes (`los_angeles`), not the display names its lists also carry
 * (`Los Angeles`). A location issue whose value is a display name gets its code as the
 * suggestion; any other issue, or when the lookup fails, keeps the service's suggestion.
 */
async function withCodes(
  api: BrowserApi,
  wire: WireSessionFields,
  issues: PreflightIssue[],
  call: CallOptions,
): Promise<PreflightIssue[]> {
  const located = (LOCATION_FIELDS as readonly string[]).includes.bind(LOCATION_FIELDS);
  if (!issues.some((i) => located(i.field))) return issues;
  const codes = await namesToCodes(api, wire, call).catch((): Codes => ({}));
  return issues.map((issue) => {
    const code = codes[issue.field as LocationField];
    if (code === undefined) return issue;
    const name = String((wire as Record<string, unknown>)[issue.field]);
    return { ...issue, suggestion: codeSuggestion(issue.field, name, code) };
  });
}

/** The code of each location field given by its display name (its parents mapped first). */
async function namesToCodes(
  api: BrowserApi,
  wire: WireSessionFields,
  call: CallOptions,
): Promise<Codes> {
  const codes: Codes = {};
  const parents: Codes = {};
  for (const field of LOCATION_FIELDS) {
    const value = (wire as Record<string, unknown>)[field];
    if (typeof value !== 'string') continue;
    parents[field] = value;
    const list =
      field === 'zip' ? undefined : listOf(api, field, parents, wire.connection_type, call);
    const found = list && (await locate(list, value));
    if (typeof found === 'object') codes[field] = parents[field] = found.code;
  }
  return codes;
}

/**
 * The location-list check (`preflight: 'strict'`, and the fields a deployment's validate did not
 * see): each of `fields` that is set must be the code of an item of its list, inside its parents.
 * Stops at the first unknown value (what is below it cannot be looked up).
 */
async function checkLocations(
  api: BrowserApi,
  wire: WireSessionFields,
  fields: readonly LocationField[],
  call: CallOptions,
): Promise<PreflightIssue[]> {
  const parents: Codes = {};
  for (const field of LOCATION_FIELDS) {
    const value = (wire as Record<string, unknown>)[field];
    if (typeof value !== 'string') continue;
    parents[field] = value;
    const list = fields.includes(field)
      ? listOf(api, field, parents, wire.connection_type, call)
      : undefined;
    const found = list && (await locate(list, value));
    if (list === undefined || found === 'code') continue;
    const where = field === 'city' ? `${parents.country}/${parents.region}` : parents.country;
    return [
      {
        code: `unknown_${field}`,
        field,
        message:
          field === 'country'
            ? `"${value}" is not a country of the location list`
            : `"${value}" is not a ${field} of ${where}`,
        suggestion: found
          ? codeSuggestion(field, value, found.code)
          : `see \`${LIST_CALL[field](parents)}\``,
      },
    ];
  }
  return [];
}
