/**
 * Find-or-create of a saved profile, rule by rule (issue 18's mutation pass): the name check,
 * the create-time defaults, one create for concurrent asks, a create lost to a race, and the
 * profile-limit error. The client is a recording stand-in, except for ensureProfile's own
 * client, which talks to a loopback server.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrowserApi, type Profile } from '../../src/browser-api/index.js';
import { RateLimitError } from '../../src/http/errors.js';
import { ProfileLimitError } from '../../src/launch/errors.js';
import { ensureProfile, findOrCreateProfile } from '../../src/launch/profiles.js';
import { ownClient } from '../../src/launch/tracker.js';
import { json, startTestServer } from '../helpers/http-server.js';
import { rejection } from '../helpers/rejection.js';

let origins = 0;

interface Script {
  /** What each findByName answers, in turn (the last repeats). */
  found?: (Profile | undefined | Error)[];
  create?: Error;
  list?: Profile[] | Error;
}

function fakeApi(script: Script = {}) {
  const calls: { method: string; args: unknown[] }[] = [];
  let finds = 0;
  const found = script.found ?? [undefined];
  const api = {
    origin: `http://profiles-${++origins}.test`,
    profiles: {
      findByName: async (...args: unknown[]) => {
        calls.push({ method: 'findByName', args });
        const answer = found[Math.min(finds++, found.length - 1)];
        if (answer instanceof Error) throw answer;
        return answer;
      },
      create: async (...args: unknown[]) => {
        calls.push({ method: 'create', args });
        await new Promise((r) => setImmediate(r));
        if (script.create) throw script.create;
        return { id: `p-${calls.length}`, name: (args[0] as { name: string }).name };
      },
      list: async (...args: unknown[]) => {
        calls.push({ method: 'list', args });
        if (script.list instanceof Error) throw script.list;
        return script.list ?? [];
      },
    },
    close: async () => {
      calls.push({ method: 'close', args: [] });
    },
  } as unknown as BrowserApi;
  return { api, calls, methods: () => calls.map((c) => c.method) };
}

const limitError = (limit: number | undefined) =>
  new RateLimitError({
    status: 429,
    method: 'POST',
    path: '/profiles',
    message: 'profile limit reached',
    body: {},
    limitType: 'profiles',
    limit,
  });

describe('findOrCreateProfile', () => {
  it('refuses a name that is not a non-empty string, before any request', async () => {
    const { api, calls } = fakeApi();
    for (const name of ['', '   ', 7]) {
      const error = await rejection(findOrCreateProfile(api, name as string));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toBe('ensureProfile: name must be a non-empty string');
    }
    expect(calls).toEqual([]);
  });

  it('returns an existing profile without creating one, with the call options', async () => {
    const shop = { id: 'p-0', name: 'shop' } as Profile;
    const { api, calls } = fakeApi({ found: [shop] });
    const signal = new AbortController().signal;
    expect(await findOrCreateProfile(api, 'shop', { signal, timeout: 50, storeCache: false })).toBe(
      shop,
    );
    expect(calls).toEqual([{ method: 'findByName', args: ['shop', { signal, timeout: 50 }] }]);
  });

  it('creates with store_cache on and pin_ip off unless told, and the description only when set', async () => {
    const { api, calls } = fakeApi();
    await findOrCreateProfile(api, 'a');
    await findOrCreateProfile(api, 'b', { storeCache: false, pinIp: true, description: '' });
    const creates = calls.filter((c) => c.method === 'create').map((c) => c.args);
    // Strict: an unset description is absent from the body, not sent as undefined.
    expect(creates).toStrictEqual([
      [
        { name: 'a', store_cache: true, pin_ip: false },
        { signal: undefined, timeout: undefined },
      ],
      [
        { name: 'b', store_cache: false, pin_ip: true, description: '' },
        { signal: undefined, timeout: undefined },
      ],
    ]);
  });

  it('concurrent asks for one new name on one client create it once; a later ask looks again', async () => {
    const { api, methods } = fakeApi();
    const [a, b] = await Promise.all([
      findOrCreateProfile(api, 'shop'),
      findOrCreateProfile(api, 'shop'),
    ]);
    expect(a).toBe(b);
    expect(methods()).toEqual(['findByName', 'create']);
    await findOrCreateProfile(api, 'shop');
    expect(methods()).toEqual(['findByName', 'create', 'findByName', 'create']);
  });

  it('our own clients share the dedup, keyed by origin and name', async () => {
    const one = fakeApi();
    const two = fakeApi();
    ownClient(one.api);
    ownClient(two.api);
    await Promise.all([
      findOrCreateProfile(one.api, 'shop'),
      findOrCreateProfile(two.api, 'shop'),
      findOrCreateProfile(one.api, 'cart'),
    ]);
    expect(one.methods()).toEqual(['findByName', 'findByName', 'create', 'create']);
    expect(two.methods()).toEqual(['findByName', 'create']);
  });

  it('a create lost to a race returns the profile the other side created', async () => {
    const theirs = { id: 'p-theirs', name: 'shop' } as Profile;
    const { api, methods } = fakeApi({
      found: [undefined, theirs],
      create: new Error('409 name taken'),
    });
    expect(await findOrCreateProfile(api, 'shop')).toBe(theirs);
    expect(methods()).toEqual(['findByName', 'create', 'findByName']);
  });

  it('a failed create with no profile found after it rethrows the create error', async () => {
    const createError = new Error('500 create failed');
    const none = fakeApi({ found: [undefined], create: createError });
    expect(await rejection(findOrCreateProfile(none.api, 'shop'))).toBe(createError);
    const lookupFails = fakeApi({ found: [undefined, new Error('lookup')], create: createError });
    expect(await rejection(findOrCreateProfile(lookupFails.api, 'shop'))).toBe(createError);
    expect(lookupFails.methods()).toEqual(['findByName', 'create', 'findByName']);
  });

  it('at the profile limit, the error names the limit and every existing profile', async () => {
    const cause = limitError(2);
    const { api, methods } = fakeApi({
      create: cause,
      list: [{ id: '1', name: 'a' } as Profile, { id: '2', name: 'b' } as Profile],
    });
    const error = await rejection(findOrCreateProfile(api, 'shop'));
    expect(error).toBeInstanceOf(ProfileLimitError);
    expect(error.message).toBe(
      'ensureProfile: cannot create profile "shop": the account\'s profile limit (2) is reached. ' +
        'Existing profiles: "a", "b". ' +
        'Delete one with `remote-browser profiles delete <name>` or `api.profiles.delete(id)`, or reuse an existing name.',
    );
    expect((error as ProfileLimitError).existing).toEqual(['a', 'b']);
    expect(error.cause).toBe(cause);
    expect(methods()).toEqual(['findByName', 'create', 'list']);
  });

  it('at the limit without a known limit, counts the list; without a list, says so', async () => {
    const counted = fakeApi({
      create: limitError(undefined),
      list: [{ id: '1', name: 'a' } as Profile],
    });
    expect((await rejection(findOrCreateProfile(counted.api, 'shop'))).message).toContain(
      'the account\'s profile limit (1) is reached. Existing profiles: "a".',
    );
    const unlisted = fakeApi({ create: limitError(3), list: new Error('down') });
    const error = await rejection(findOrCreateProfile(unlisted.api, 'shop'));
    expect(error.message).toContain('limit (3) is reached. Existing profiles: (could not list).');
    expect((error as ProfileLimitError).existing).toEqual([]);
  });
});

describe('ensureProfile', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("leaves the caller's client open", async () => {
    const { api, methods } = fakeApi({ found: [{ id: 'p', name: 'shop' } as Profile] });
    await ensureProfile('shop', { api });
    expect(methods()).toEqual(['findByName']);
  });

  it('builds its own client from token and baseUrl, and closes it, also after a failure', async () => {
    const server = await startTestServer();
    const closes = vi.spyOn(BrowserApi.prototype, 'close');
    try {
      server.respond(
        json(200, { data: [{ id: 'p-1', name: 'shop' }] }),
        json(401, { error: { code: 'unauthorized', message: 'bad token' } }),
      );
      const profile = await ensureProfile('shop', { token: 'tok-123', baseUrl: server.origin });
      expect(profile).toMatchObject({ id: 'p-1', name: 'shop' });
      expect(server.requests[0]?.headers.authorization).toBe('Bearer tok-123');
      expect(closes).toHaveBeenCalledTimes(1);
      await expect(
        ensureProfile('cart', { token: 'tok-123', baseUrl: server.origin }),
      ).rejects.toThrow(/401/);
      expect(closes).toHaveBeenCalledTimes(2);
    } finally {
      await server.close();
    }
  });
});
