import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isRequestValidationError, ResponseValidationError } from '../../src/http/errors.js';
import { json } from '../helpers/http-server.js';
import { type ApiFixture, ok, startApi, wireBody, wirePath } from './api-server.js';

let f: ApiFixture;
beforeAll(async () => {
  f = await startApi();
});
afterAll(() => f.close());
afterEach(() => {
  f.server.requests.length = 0;
});

const valid = {
  valid: true,
  normalized: { country: 'us', protocol: 'http', filter_mode: 'quality', quality_filter: true },
  issues: null,
  proxy_username_preview: 'user-country-us-sid-abc-filter-medium-source-browser',
};

const options = {
  connection_types: [
    { value: 'residential', label: 'Residential', default: true },
    { value: 'mobile', label: 'Mobile' },
  ],
  session_types: [
    { value: 'sticky', label: 'Sticky', default: true },
    { value: 'rotating', label: 'Rotating' },
    { value: 'no_rotating', label: 'No rotating' },
  ],
  protocols: [
    { value: 'http', label: 'HTTP', default: true },
    { value: 'socks5', label: 'SOCKS5' },
  ],
  filter_modes: ['quality', 'quality_speed', 'speed', 'none'].map((value) => ({
    value,
    label: value,
  })),
  filter_levels: { quality: 'medium', speed: 'fast' },
  quality_filter: { default: true, deprecated: true },
  location_levels: ['countries', 'regions', 'cities', 'isps', 'zip-codes'],
};

describe('configurations.validate', () => {
  it('posts the config and returns the validation result with issues null when clean', async () => {
    f.server.respond(ok(valid));
    expect(await f.api.configurations.validate({ country: 'us', filter_mode: 'quality' })).toEqual(
      valid,
    );
    expect(f.server.requests[0]?.method).toBe('POST');
    expect(wirePath(f.server.requests[0])).toBe('/configurations/validate');
    expect(wireBody(f.server.requests[0])).toEqual({ country: 'us', filter_mode: 'quality' });
  });

  it('sends an unsupported filter_mode to the service, whose issues explain it', async () => {
    const invalid = {
      valid: false,
      normalized: {},
      issues: [
        {
          code: 'unsupported_filter_mode',
          field: 'filter_mode',
          message: 'unsupported',
          suggestion: 'quality, quality_speed, speed, none',
        },
      ],
      proxy_username_preview: '',
    };
    f.server.respond(ok(invalid));
    const result = await f.api.configurations.validate({ filter_mode: 'fast' });
    expect(result.issues?.[0]?.code).toBe('unsupported_filter_mode');
  });

  it('is retried after a 503 although it is a POST', async () => {
    f.server.respond(json(503, { error: 'busy' }), ok(valid));
    await f.api.configurations.validate({});
    expect(f.server.requests).toHaveLength(2);
  });

  it('rejects a config field of the wrong type before any request', async () => {
    const error = await f.api.configurations
      .validate({ country: 7 as never })
      .catch((e: unknown) => e);
    expect(isRequestValidationError(error)).toBe(true);
    expect((error as Error).message).toContain('country: must be a string (got 7)');
    expect(f.server.requests).toHaveLength(0);
  });

  it('names a broken documented field: issues must be an array or null', async () => {
    f.server.respond(ok({ ...valid, issues: 'none' }));
    const error = (await f.api.configurations
      .validate({})
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.field).toBe('issues');
  });
});

describe('proxy.options', () => {
  it('gets the vocabulary from /proxy/options', async () => {
    f.server.respond(ok(options));
    const result = await f.api.proxy.options();
    expect(result.filter_modes.map((m) => m.value)).toEqual([
      'quality',
      'quality_speed',
      'speed',
      'none',
    ]);
    expect(result.filter_levels).toEqual({ quality: 'medium', speed: 'fast' });
    expect(`${f.server.requests[0]?.method} ${wirePath(f.server.requests[0])}`).toBe(
      'GET /proxy/options',
    );
  });

  it('names a missing documented key', async () => {
    const { location_levels: _, ...rest } = options;
    f.server.respond(ok(rest));
    const error = (await f.api.proxy.options().catch((e: unknown) => e)) as ResponseValidationError;
    expect(error.field).toBe('location_levels');
  });
});
