/**
 * Preflight rule by rule (issue 18's mutation pass): the cache key, the cache (per origin, a
 * failed call not kept), how the service's issues become a PreflightError, and `'strict'`'s
 * location checks, which no e2e test reaches (the emulator's validate rejects first). The
 * client is a recording stand-in: what is under test is what preflight asks and concludes.
 */
import { describe, expect, it } from 'vitest';
import type { BrowserApi, ValidationResult } from '../../src/browser-api/index.js';
import { PreflightError } from '../../src/launch/errors.js';
import {
  checkTargeting,
  clearPreflightCache,
  preflight,
  preflightKey,
} from '../../src/launch/preflight.js';
import { ownClient } from '../../src/launch/tracker.js';

type Place = { code: string; name: string };
interface Lists {
  countries?: Place[];
  regions?: Place[];
  cities?: Place[];
}

let origins = 0;

/** A client whose validate answers `results` in turn (the last repeats) and whose location lists are `lists`. */
function fakeApi(results: (ValidationResult | Error)[], lists: Lists = {}) {
  const calls: { method: string; params: unknown; call: unknown }[] = [];
  const page = (method: keyof Lists) => (params: unknown, call: unknown) => {
    calls.push({ method, params, call });
    return (async function* () {
      yield* lists[method] ?? [];
    })();
  };
  let answered = 0;
  const api = {
    origin: `http://preflight-${++origins}.test`,
    configurations: {
      validate: async (params: unknown, call: unknown) => {
        calls.push({ method: 'validate', params, call });
        const result = results[Math.min(answered++, results.length - 1)] as ValidationResult;
        if (result instanceof Error) throw result;
        return result;
      },
    },
    locations: {
      countries: page('countries'),
      regions: page('regions'),
      cities: page('cities'),
    },
  } as unknown as BrowserApi;
  const methods = () => calls.map((c) => c.method);
  return { api, calls, methods };
}

const VALID = { valid: true, issues: null } as unknown as ValidationResult;
const call = { timeout: 1000 };

async function failure(promise: Promise<unknown>): Promise<PreflightError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(PreflightError);
    return error as PreflightError;
  }
  throw new Error('preflight passed');
}

describe('preflightKey', () => {
  it('is a 16-hex-digit hash of the validated fields and the mode, in any key order', () => {
    const key = preflightKey({ country: 'us', region: 'ca' }, true);
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(preflightKey({ region: 'ca', country: 'us' }, true)).toBe(key);
    expect(preflightKey({ country: 'us', region: 'ca', zip: '1', isp: 'x' }, true)).toBe(key);
    expect(preflightKey({ country: 'us', region: 'tx' }, true)).not.toBe(key);
    expect(preflightKey({ country: 'us', region: 'ca' }, 'strict')).not.toBe(key);
  });

  it('counts the city only in strict mode, where the location check reads it', () => {
    const wire = { country: 'us', region: 'ca' };
    expect(preflightKey({ ...wire, city: 'la' }, true)).toBe(preflightKey(wire, true));
    expect(preflightKey({ ...wire, city: 'la' }, 'strict')).not.toBe(preflightKey(wire, 'strict'));
    expect(preflightKey({ ...wire, city: 'la' }, 'strict')).not.toBe(
      preflightKey({ ...wire, city: 'sf' }, 'strict'),
    );
    // A city that is not a name (wire fields are untyped at runtime) is not part of the key.
    expect(preflightKey({ ...wire, city: 5 as never }, 'strict')).toBe(
      preflightKey(wire, 'strict'),
    );
  });
});

describe('preflight', () => {
  it('sends the validated fields with the call options, and passes a valid config', async () => {
    const { api, calls } = fakeApi([VALID]);
    await preflight(api, { country: 'us', zip: '1', connection_type: 'mobile' }, true, 'x', call);
    expect(calls).toEqual([
      { method: 'validate', params: { country: 'us', connection_type: 'mobile' }, call },
    ]);
  });

  it('lists every issue the service reported, its suggestion as text', async () => {
    const { api } = fakeApi([
      {
        valid: false,
        issues: [
          { code: 'c1', field: 'country', message: 'unknown', suggestion: 'us' },
          { code: 'c2', field: 'region', message: 'bad', suggestion: null },
          { code: 'c3', field: 'filter_mode', message: 'no', suggestion: ['a', 'b'] },
          { code: 'c4', field: 'protocol', message: 'old' },
        ],
      } as unknown as ValidationResult,
    ]);
    const error = await failure(preflight(api, { country: 'zz' }, true, 'launchRemote', call));
    expect(error.issues).toEqual([
      { code: 'c1', field: 'country', message: 'unknown', suggestion: 'us' },
      { code: 'c2', field: 'region', message: 'bad', suggestion: undefined },
      { code: 'c3', field: 'filter_mode', message: 'no', suggestion: '["a","b"]' },
      { code: 'c4', field: 'protocol', message: 'old', suggestion: undefined },
    ]);
    expect(error.message).toMatch(/^launchRemote: preflight failed, no session was created: /);
  });

  it('an invalid verdict without issues is still an issue of the whole config', async () => {
    const { api } = fakeApi([{ valid: false, issues: [] } as unknown as ValidationResult]);
    const error = await failure(preflight(api, { country: 'us' }, true, 'launchRemote', call));
    expect(error.issues).toEqual([
      {
        code: 'invalid',
        field: '(config)',
        message: 'the service reported the config as invalid',
        suggestion: undefined,
      },
    ]);
  });

  it('caches a verdict, passed or failed, per client and key', async () => {
    const { api, methods } = fakeApi([
      VALID,
      { valid: false, issues: null } as unknown as ValidationResult,
    ]);
    await preflight(api, { country: 'us' }, true, 'x', call);
    await preflight(api, { country: 'us' }, true, 'x', call);
    await failure(preflight(api, { country: 'de' }, true, 'x', call));
    await failure(preflight(api, { country: 'de' }, true, 'x', call));
    expect(methods()).toEqual(['validate', 'validate']);
  });

  it('does not cache a failed call: the next launch asks again', async () => {
    const { api, methods } = fakeApi([new Error('502'), VALID]);
    await expect(preflight(api, { country: 'us' }, true, 'x', call)).rejects.toThrow('502');
    await preflight(api, { country: 'us' }, true, 'x', call);
    await preflight(api, { country: 'us' }, true, 'x', call);
    expect(methods()).toEqual(['validate', 'validate']);
  });

  it('keys the shared cache of our own clients by origin, and clearPreflightCache empties it', async () => {
    const a = fakeApi([VALID]);
    const b = fakeApi([VALID]);
    ownClient(a.api);
    ownClient(b.api);
    await preflight(a.api, { country: 'us' }, true, 'x', call);
    await preflight(b.api, { country: 'us' }, true, 'x', call);
    await preflight(a.api, { country: 'us' }, true, 'x', call);
    expect([a.methods(), b.methods()]).toEqual([['validate'], ['validate']]);
    clearPreflightCache();
    await preflight(a.api, { country: 'us' }, true, 'x', call);
    expect(a.methods()).toEqual(['validate', 'validate']);
  });
});

describe("preflight: 'strict'", () => {
  const lists: Lists = {
    countries: [
      { code: 'DE', name: 'Germany' },
      { code: 'us', name: 'United States' },
    ],
    regions: [{ code: 'ca', name: 'California' }],
    cities: [{ code: 'la', name: 'Los Angeles' }],
  };

  it('checks country, region and city against the location lists, by code or name in any case', async () => {
    const { api, calls } = fakeApi([VALID], lists);
    const wire = {
      country: 'US',
      region: 'california',
      city: 'LOS ANGELES',
      connection_type: 'mobile' as const,
    };
    await preflight(api, wire, 'strict', 'x', call);
    expect(calls).toEqual([
      {
        method: 'validate',
        params: { country: 'US', region: 'california', connection_type: 'mobile' },
        call,
      },
      {
        method: 'countries',
        params: { search: 'US', connection_type: 'mobile' },
        call: { timeout: 1000 },
      },
      {
        method: 'regions',
        params: { country: 'US', connection_type: 'mobile' },
        call: { timeout: 1000 },
      },
      {
        method: 'cities',
        params: { country: 'US', region: 'california', connection_type: 'mobile' },
        call: { timeout: 1000 },
      },
    ]);
    await preflight(fakeApi([VALID], lists).api, { country: 'de' }, 'strict', 'x', call);
  });

  it('an unknown country is an issue, and nothing below it is looked up', async () => {
    const { api, methods } = fakeApi([VALID], lists);
    const error = await failure(
      preflight(api, { country: 'fr', region: 'ca', city: 'la' }, 'strict', 'launchRemote', call),
    );
    expect(error.issues).toEqual([
      {
        code: 'unknown_country',
        field: 'country',
        message: '"fr" is not a country of the location list',
        suggestion: 'see `api.locations.countries()`',
      },
    ]);
    expect(methods()).toEqual(['validate', 'countries']);
  });

  it('an unknown region is an issue naming its country, and the city is not looked up', async () => {
    const { api, methods } = fakeApi([VALID], lists);
    const error = await failure(
      preflight(api, { country: 'us', region: 'tx', city: 'la' }, 'strict', 'x', call),
    );
    expect(error.issues).toEqual([
      {
        code: 'unknown_region',
        field: 'region',
        message: '"tx" is not a region of us',
        suggestion: "see `api.locations.regions({ country: 'us' })`",
      },
    ]);
    expect(methods()).toEqual(['validate', 'countries', 'regions']);
  });

  it('an unknown city is an issue naming its country and region', async () => {
    const { api } = fakeApi([VALID], lists);
    const error = await failure(
      preflight(api, { country: 'us', region: 'ca', city: 'sf' }, 'strict', 'x', call),
    );
    expect(error.issues).toEqual([
      {
        code: 'unknown_city',
        field: 'city',
        message: '"sf" is not a city of us/ca',
        suggestion: "see `api.locations.cities({ country: 'us', region: 'ca' })`",
      },
    ]);
  });

  it('looks up only what is set: no country, no lookup; a city without a region, none', async () => {
    const none = fakeApi([VALID], {});
    await preflight(none.api, { region: 'ca', city: 'la' }, 'strict', 'x', call);
    await preflight(none.api, { city: 'la' }, 'strict', 'x', call);
    expect(none.methods()).toEqual(['validate', 'validate']);
    const noRegion = fakeApi([VALID], lists);
    await preflight(noRegion.api, { country: 'us', city: 'nowhere' }, 'strict', 'x', call);
    expect(noRegion.methods()).toEqual(['validate', 'countries']);
  });

  it('runs no location check when validate already failed, or when not strict', async () => {
    const failed = fakeApi([{ valid: false, issues: null } as unknown as ValidationResult], {});
    const error = await failure(preflight(failed.api, { country: 'fr' }, 'strict', 'x', call));
    expect(error.issues.map((i) => i.code)).toEqual(['invalid']);
    expect(failed.methods()).toEqual(['validate']);
    const lenient = fakeApi([VALID], {});
    await preflight(lenient.api, { country: 'fr' }, true, 'x', call);
    expect(lenient.methods()).toEqual(['validate']);
  });
});

describe('checkTargeting', () => {
  it("returns the service's result and the issues, uncached and without throwing", async () => {
    const result = {
      valid: false,
      issues: null,
      proxy_username: 'u',
    } as unknown as ValidationResult;
    const { api, calls } = fakeApi([result], {});
    const checked = await checkTargeting(api, { country: 'fr' }, 'strict');
    expect(checked.result).toBe(result);
    expect(checked.issues.map((i) => i.code)).toEqual(['invalid']);
    await checkTargeting(api, { country: 'fr' }, true, call);
    expect(calls.map((c) => c.call)).toEqual([{}, call]);
  });
});
