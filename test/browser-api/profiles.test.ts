import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  isRequestValidationError,
  NotFoundError,
  RateLimitError,
  ResponseValidationError,
} from '../../src/http/errors.js';
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

const profile = {
  id: 'p-1',
  name: 'shop',
  description: '',
  created_at: '2025-01-01T00:00:00Z',
  pin_ip: false,
  store_cache: true,
};
const calls = () => f.server.requests.map((r) => `${r.method} ${wirePath(r)}`);

describe('profiles', () => {
  it('creates, lists, retrieves, updates (PATCH) and deletes on the documented paths', async () => {
    f.server.respond(
      ok(profile),
      ok([profile]),
      ok(profile),
      ok({ ...profile, name: 'shop2' }),
      ok({}),
    );
    expect(await f.api.profiles.create({ name: 'shop', store_cache: true, pin_ip: false })).toEqual(
      profile,
    );
    expect(await f.api.profiles.list()).toEqual([profile]);
    expect(await f.api.profiles.retrieve('p-1')).toEqual(profile);
    expect((await f.api.profiles.update('p-1', { name: 'shop2' })).name).toBe('shop2');
    await f.api.profiles.delete('p-1');
    expect(calls()).toEqual([
      'POST /profiles',
      'GET /profiles',
      'GET /profiles/p-1',
      'PATCH /profiles/p-1',
      'DELETE /profiles/p-1',
    ]);
    expect(f.server.requests.map(wireBody)).toEqual([
      { name: 'shop', store_cache: true, pin_ip: false },
      undefined,
      undefined,
      { name: 'shop2' },
      undefined,
    ]);
  });

  it('treats any 2xx of a delete as deleted, whatever its body', async () => {
    f.server.respond(json(200, { deleted: true }));
    await expect(f.api.profiles.delete('p-1')).resolves.toBeUndefined();
  });

  it('keeps the pinned_* fields the service returns once a profile was used', async () => {
    f.server.respond(
      ok({ ...profile, pin_ip: true, pinned_country: 'us', pinned_connection_type: 'residential' }),
    );
    expect(await f.api.profiles.retrieve('p-1')).toMatchObject({
      pinned_country: 'us',
      pinned_connection_type: 'residential',
    });
  });

  it('finds a profile by exact name, or undefined', async () => {
    f.server.respond(ok([profile, { ...profile, id: 'p-2', name: 'Shop' }]));
    expect((await f.api.profiles.findByName('Shop'))?.id).toBe('p-2');
    expect(await f.api.profiles.findByName('other')).toBeUndefined();
  });

  it('rejects a missing name, an empty update and wrong types before any request', async () => {
    for (const [call, message] of [
      [
        () => f.api.profiles.create({} as never),
        'profiles.create: invalid request: name: is required',
      ],
      [
        () => f.api.profiles.create({ name: 'x', pin_ip: 'yes' as never }),
        'pin_ip: must be a boolean (got "yes")',
      ],
      [() => f.api.profiles.update('p-1', {}), 'must set at least one of name, description'],
      [() => f.api.profiles.update('', { name: 'x' }), 'id: must not be empty'],
      [() => f.api.profiles.delete(''), 'id: must not be empty'],
      [() => f.api.profiles.findByName(''), 'name: must be a non-empty string'],
    ] as const) {
      const error = await call().catch((e: unknown) => e);
      expect(isRequestValidationError(error)).toBe(true);
      expect((error as Error).message).toContain(message);
    }
    expect(f.server.requests).toHaveLength(0);
  });

  it('does not retry a create at the profile limit and reports the limit fields', async () => {
    f.server.respond(
      json(
        429,
        {
          error: 'profile limit reached',
          limit_type: 'profiles',
          current_usage: 10,
          limit: 10,
          retry_after: 1,
        },
        { 'retry-after': '1' },
      ),
    );
    const error = (await f.api.profiles
      .create({ name: 'x' })
      .catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect([error.limitType, error.currentUsage, error.limit, error.retryAfterMs]).toEqual([
      'profiles',
      10,
      10,
      1000,
    ]);
    expect(f.server.requests).toHaveLength(1);
  });

  it('maps a 404 for another account profile to NotFoundError', async () => {
    f.server.respond(json(404, { error: 'profile not found' }));
    await expect(f.api.profiles.retrieve('theirs')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('names a broken documented field of a profile', async () => {
    f.server.respond(ok({ ...profile, pin_ip: 'no' }));
    const error = (await f.api.profiles
      .retrieve('p-1')
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.field).toBe('pin_ip');
  });
});
