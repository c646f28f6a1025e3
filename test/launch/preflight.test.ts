/**
 * Preflight rule by rule (issue 18's mutation pass): the cache key, the cache (per origin, a
 * failed call not kept), how the service's issues become a PreflightError, the fallback when a
 * deployment's validate refuses the unlisted fields, the display-name suggestions and
 * `'strict'`'s location checks. The client is a recording stand-in: what is under test is what
 * preflight asks and concludes (preflight-and-profiles.e2e.test.ts runs it against the emulator).
 */
import { describe, expect, it } from 'vitest';
import type { BrowserApi, ValidationResult } from '../../src/browser-api/index.js';
import { BadRequestError } from '../../src/http/errors.js';
import { PreflightError } from '../../src/launch/errors.js';
import {
  checkTargeting,
  clearPreflightCache,
  preflight,
  preflightKey,
} from '../../src/launch/preflight.js';
import { ownClient } from '../../src/launch/tracker.js';
import { debugLines } from '../helpers/debug-lines.js';

type Place = { code: string; name: string };
interface Lists {
  countries?: Place[];
  regions?: Place[];
  cities?: Place[];
  isps?: Place[];
  zipCodes?: Place[];
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
      isps: page('isps'),
      zipCodes: page('zipCodes'),
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
    expect(preflightKey({ country: 'us', region: 'ca', ipv4_only: true }, true)).toBe(key);
    expect(preflightKey({ country: 'us', region: 'tx' }, true)).not.toBe(key);
    expect(preflightKey({ country: 'us', region: 'ca' }, 'strict')).not.toBe(key);
  });

  it('counts city, zip and isp in both modes: validate reads them', () => {
    const wire = { country: 'us', region: 'ca' };
    for (const mode of [true, 'strict'] as const) {
      const keys = [
        wire,
        { ...wire, city: 'la' },
        { ...wire, city: 'sf' },
        { ...wire, zip: '90001' },
        { ...wire, isp: 'comcast' },
      ].map((w) => preflightKey(w, mode));
      expect(new Set(keys).size).toBe(keys.length);
    }
    // A city that is not a name (wire fields are untyped at runtime) is not part of the key.
    expect(preflightKey({ ...wire, city: 5 as never }, 'strict')).toBe(
      preflightKey(wire, 'strict'),
    );
  });
});

describe('preflight', () => {
  it('sends the whole targeting, city, zip and isp included, with the call options', async () => {
    const { api, calls } = fakeApi([VALID]);
    const wire = {
      country: 'us',
      region: 'ca',
      city: 'los_angeles',
      zip: '90001',
      isp: 'comcast',
      connection_type: 'mobile' as const,
      ipv4_only: true,
    };
    await preflight(api, wire, true, 'x', call);
    const { ipv4_only: _, ...targeting } = wire;
    expect(calls).toEqual([{ method: 'validate', params: targeting, call }]);
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

const LISTS: Lists = {
  countries: [
    { code: 'DE', name: 'Germany' },
    { code: 'us', name: 'United States' },
  ],
  regions: [{ code: 'ca', name: 'California' }],
  cities: [{ code: 'los_angeles', name: 'Los Angeles' }],
  isps: [{ code: 'comcast', name: 'Comcast Cable' }],
  zipCodes: [{ code: '90001', name: '90001' }],
};

/** A validate answer with one issue on `field`, as the service words it. */
function refused(field: string): ValidationResult {
  return {
    valid: false,
    issues: [
      {
        code: `unknown_${field}`,
        field,
        message: `${field} is not available`,
        suggestion: 'see the list',
      },
    ],
  } as unknown as ValidationResult;
}

describe('a location given by its display name', () => {
  it.each([
    ['region', { country: 'us', region: 'California' }, 'ca'],
    ['city', { country: 'us', region: 'ca', city: 'Los Angeles' }, 'los_angeles'],
    ['isp', { country: 'us', isp: 'comcast cable' }, 'comcast'],
    ['country', { country: 'germany' }, 'DE'],
  ] as const)('fails with the %s code in the suggestion', async (field, wire, code) => {
    const { api } = fakeApi([refused(field)], LISTS);
    const error = await failure(preflight(api, wire, true, 'x', call));
    expect(error.issues).toEqual([
      {
        code: `unknown_${field}`,
        field,
        message: `${field} is not available`,
        suggestion: expect.stringContaining(`use the code "${code}"`),
      },
    ]);
  });

  it('maps the parents first: a region name still finds the city by its name', async () => {
    const { api, calls } = fakeApi(
      [
        {
          ...refused('region'),
          issues: [...refused('region').issues!, ...refused('city').issues!],
        },
      ],
      LISTS,
    );
    const wire = { country: 'us', region: 'California', city: 'Los Angeles' };
    const error = await failure(preflight(api, wire, true, 'x', call));
    expect(error.issues.map((i) => i.suggestion)).toEqual([
      expect.stringContaining('"ca"'),
      expect.stringContaining('"los_angeles"'),
    ]);
    expect(calls.find((c) => c.method === 'cities')?.params).toMatchObject({ region: 'ca' });
  });

  it("keeps the service's suggestion for a value that is no name, a zip, or another field", async () => {
    const unknown = fakeApi([refused('city')], LISTS);
    const error = await failure(
      preflight(unknown.api, { country: 'us', region: 'ca', city: 'Atlantis' }, true, 'x', call),
    );
    expect(error.issues[0]?.suggestion).toBe('see the list');
    const zip = fakeApi([refused('zip')], LISTS);
    const zipError = await failure(
      preflight(zip.api, { country: 'us', zip: '1' }, true, 'x', call),
    );
    expect(zipError.issues[0]?.suggestion).toBe('see the list');
    expect(zip.methods()).toEqual(['validate', 'countries']);
    const other = fakeApi([refused('filter_mode')], LISTS);
    await failure(preflight(other.api, { country: 'us' }, true, 'x', call));
    expect(other.methods()).toEqual(['validate']);
  });

  it("keeps the service's suggestion when the lookup itself fails", async () => {
    const { api } = fakeApi([refused('region')], LISTS);
    api.locations.regions = () => {
      throw new Error('503');
    };
    const error = await failure(
      preflight(api, { country: 'us', region: 'California' }, true, 'x', call),
    );
    expect(error.issues[0]?.suggestion).toBe('see the list');
  });
});

describe('a deployment whose validate refuses city, zip or isp', () => {
  const badRequest = () =>
    new BadRequestError({
      status: 400,
      method: 'POST',
      path: '/configurations/validate',
      message: 'unknown field city',
      body: null,
    });

  it('is asked again with the listed fields, says so, and the rest is checked in the lists', async () => {
    const { api, calls } = fakeApi([badRequest(), VALID], LISTS);
    const wire = { country: 'us', region: 'ca', city: 'los_angeles', isp: 'comcast' };
    const lines = await debugLines(
      () => preflight(api, wire, true, 'x', call),
      'remote-browser:launch',
    );
    expect(calls.map((c) => [c.method, c.params])).toEqual([
      ['validate', wire],
      ['validate', { country: 'us', region: 'ca' }],
      ['cities', { country: 'us', region: 'ca', connection_type: undefined }],
      ['isps', { country: 'us', connection_type: undefined }],
    ]);
    expect(lines).toEqual([
      expect.stringMatching(
        /answered 400 to city, isp in \/configurations\/validate; .* location lists/,
      ),
    ]);
  });

  it('refuses by the lists what validate did not see: a display name with its code', async () => {
    const { api } = fakeApi([badRequest(), VALID], LISTS);
    const error = await failure(
      preflight(api, { country: 'us', zip: '99999', isp: 'Comcast Cable' }, true, 'x', call),
    );
    expect(error.issues).toEqual([
      {
        code: 'unknown_zip',
        field: 'zip',
        message: '"99999" is not a zip of us',
        suggestion: "see `api.locations.zipCodes({ country: 'us' })`",
      },
    ]);
    const isp = fakeApi([badRequest(), VALID], LISTS);
    const ispError = await failure(
      preflight(isp.api, { country: 'us', isp: 'Comcast Cable' }, true, 'x', call),
    );
    expect(ispError.issues[0]?.suggestion).toMatch(/^use the code "comcast"/);
  });

  it('a 400 to the listed fields alone, or another error, is the error', async () => {
    const listed = fakeApi([badRequest(), VALID], LISTS);
    await expect(preflight(listed.api, { country: 'us' }, true, 'x', call)).rejects.toBeInstanceOf(
      BadRequestError,
    );
    expect(listed.methods()).toEqual(['validate']);
    const other = fakeApi([new Error('502'), VALID], LISTS);
    await expect(preflight(other.api, { city: 'x' }, true, 'x', call)).rejects.toThrow('502');
    expect(other.methods()).toEqual(['validate']);
  });
});

describe("preflight: 'strict'", () => {
  it('checks every location field against its list by code, in any case', async () => {
    const { api, calls } = fakeApi([VALID], LISTS);
    const wire = {
      country: 'US',
      region: 'CA',
      city: 'los_angeles',
      zip: '90001',
      isp: 'Comcast',
      connection_type: 'mobile' as const,
    };
    await preflight(api, wire, 'strict', 'x', call);
    const connection_type = 'mobile';
    expect(calls.slice(1)).toEqual(
      [
        { method: 'countries', params: { search: 'US', connection_type } },
        { method: 'regions', params: { country: 'US', connection_type } },
        { method: 'cities', params: { country: 'US', region: 'CA', connection_type } },
        {
          method: 'zipCodes',
          params: { country: 'US', region: 'CA', city: 'los_angeles', connection_type },
        },
        { method: 'isps', params: { country: 'US', connection_type } },
      ].map((c) => ({ ...c, call })),
    );
    await preflight(fakeApi([VALID], LISTS).api, { country: 'de' }, 'strict', 'x', call);
  });

  it('an unknown country is an issue, and nothing below it is looked up', async () => {
    const { api, methods } = fakeApi([VALID], LISTS);
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
    const { api, methods } = fakeApi([VALID], LISTS);
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
    const { api } = fakeApi([VALID], LISTS);
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

  it('a display name is refused with its code, even when the lists know the name', async () => {
    const { api } = fakeApi([VALID], LISTS);
    const error = await failure(
      preflight(api, { country: 'us', region: 'ca', city: 'LOS ANGELES' }, 'strict', 'x', call),
    );
    expect(error.issues).toEqual([
      {
        code: 'unknown_city',
        field: 'city',
        message: '"LOS ANGELES" is not a city of us/ca',
        suggestion: expect.stringMatching(/^use the code "los_angeles": "LOS ANGELES" is the city/),
      },
    ]);
  });

  it('looks up only what is set: no country, no lookup; a city without a region, none', async () => {
    const none = fakeApi([VALID], {});
    await preflight(none.api, { region: 'ca', city: 'la' }, 'strict', 'x', call);
    await preflight(none.api, { city: 'la' }, 'strict', 'x', call);
    expect(none.methods()).toEqual(['validate', 'validate']);
    const noRegion = fakeApi([VALID], LISTS);
    await preflight(noRegion.api, { country: 'us', city: 'nowhere' }, 'strict', 'x', call);
    expect(noRegion.methods()).toEqual(['validate', 'countries']);
  });

  it('runs no location check when validate already failed, or when not strict', async () => {
    const failed = fakeApi([{ valid: false, issues: null } as unknown as ValidationResult], {});
    const error = await failure(preflight(failed.api, { country: 'fr' }, 'strict', 'x', call));
    expect(error.issues.map((i) => i.code)).toEqual(['invalid']);
    expect(failed.methods()).toEqual(['validate']);
    const lenient = fakeApi([VALID], {});
    await preflight(lenient.api, { country: 'fr', city: 'x' }, true, 'x', call);
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
