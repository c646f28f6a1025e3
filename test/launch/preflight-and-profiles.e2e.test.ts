import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { PreflightError, ProfileLimitError } from '../../src/launch/errors.js';
import { preflight, preflightKey } from '../../src/launch/preflight.js';
import { ensureProfile } from '../../src/launch/profiles.js';

let emu: EmulatorHandle;
let api: BrowserApi | undefined;

beforeAll(async () => {
  // No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
  emu = await startEmulator({ ffmpegPath: false });
});
afterAll(() => emu?.close());
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function freshApi(limits?: { profiles?: number }) {
  const account = await emu.admin.createAccount(limits ? { limits } : {});
  const client = new BrowserApi({
    baseUrl: emu.url,
    token: account.token,
    proxyPassword: account.proxyPassword,
  });
  api = client;
  return client;
}

describe('preflight', () => {
  it('validates each targeting once per process, and again for a different one', async () => {
    const api = await freshApi();
    const validate = vi.spyOn(api.configurations, 'validate');
    const call = { timeout: 10_000 };
    await preflight(api, { country: 'us', filter_mode: 'speed' }, true, 'launchRemote', call);
    await preflight(api, { filter_mode: 'speed', country: 'us' }, true, 'launchRemote', call);
    expect(validate).toHaveBeenCalledTimes(1);
    await preflight(api, { country: 'de' }, true, 'launchRemote', call);
    expect(validate).toHaveBeenCalledTimes(2);
  });

  it('keys strict results on the city: a bad city never poisons a good one, nor the reverse', async () => {
    const api = await freshApi();
    const call = { timeout: 10_000 };
    const target = { country: 'us', region: 'ca' };
    const bad: any = await preflight(
      api,
      { ...target, city: 'atlantis' },
      'strict',
      'w',
      call,
    ).catch((e) => e);
    expect(bad).toBeInstanceOf(PreflightError);
    expect(bad.issues.map((i: { code: string }) => i.code)).toEqual(['unknown_city']);
    await expect(
      preflight(api, { ...target, city: 'los_angeles' }, 'strict', 'w', call),
    ).resolves.toBeUndefined();
    // The reverse order, after a good city was cached, on a new client (its cache starts empty).
    await api.close();
    const again = await freshApi();
    await preflight(again, { ...target, city: 'san_diego' }, 'strict', 'w', call);
    await expect(
      preflight(again, { ...target, city: 'atlantis' }, 'strict', 'w', call),
    ).rejects.toBeInstanceOf(PreflightError);
  });

  it('builds one secret-free key for the launch cache and the fixture alike', () => {
    const a = preflightKey({ country: 'us', region: 'ca', city: 'a' }, 'strict');
    expect(preflightKey({ city: 'a', region: 'ca', country: 'us' }, 'strict')).toBe(a);
    expect(preflightKey({ country: 'us', region: 'ca', city: 'b' }, 'strict')).not.toBe(a);
    expect(preflightKey({ country: 'us', region: 'ca', city: 'a' }, true)).not.toBe(a);
    // The service's validate reads the city in either mode, so it splits the cache in both.
    expect(preflightKey({ country: 'us', city: 'a' }, true)).not.toBe(
      preflightKey({ country: 'us', city: 'b' }, true),
    );
    expect(a).toMatch(/^[0-9a-f]{16}$/);
  });

  it("lists each of the service's issues with its suggestion", async () => {
    const api = await freshApi();
    const err: any = await preflight(
      api,
      { country: 'zz', filter_mode: 'fastest' as never },
      true,
      'launchRemote',
      {},
    ).catch((e) => e);
    expect(err).toBeInstanceOf(PreflightError);
    const fields = err.issues.map((i: { field: string }) => i.field);
    expect(fields).toEqual(expect.arrayContaining(['country', 'filter_mode']));
    expect(err.message).toMatch(/^launchRemote: preflight failed, no session was created: /);
    expect(err.message).toMatch(
      /filter_mode: .*\(suggestion: .*quality.*\) \[unsupported_filter_mode\]/,
    );
  });
});

describe('each location field: what the preflight passes, the create accepts', () => {
  const good = { country: 'us', region: 'ca', city: 'los_angeles', zip: '90001', isp: 'comcast' };
  it.each([
    ['region', { region: 'California' }, 'use the code "ca"'],
    ['city', { city: 'Los Angeles' }, 'use the code "los_angeles"'],
    ['zip', { zip: '10001' }, 'zip-codes?country=us'],
    ['isp', { isp: 'Comcast Cable' }, 'use the code "comcast"'],
  ] as const)(
    'a wrong %s fails the preflight in both modes before any create; its code creates',
    async (field, wrong, suggestion) => {
      const api = await freshApi();
      const call = { timeout: 10_000 };
      for (const mode of [true, 'strict'] as const) {
        const error: any = await preflight(api, { ...good, ...wrong }, mode, 'w', call).catch(
          (e) => e,
        );
        expect(error).toBeInstanceOf(PreflightError);
        expect(error.issues).toEqual([
          expect.objectContaining({ field, suggestion: expect.stringContaining(suggestion) }),
        ]);
      }
      expect(await api.sessions.list()).toEqual([]);
      const targeting = { country: 'us', [field]: good[field] } as typeof good;
      if (field === 'city' || field === 'zip') targeting.region = 'ca';
      if (field === 'zip') targeting.city = 'los_angeles';
      for (const mode of [true, 'strict'] as const)
        await preflight(api, targeting, mode, 'w', call);
      const created = await api.sessions.create(targeting);
      await api.sessions.end(created.id);
    },
  );
});

describe('ensureProfile', () => {
  it('finds a profile by name instead of creating it twice, also under concurrency', async () => {
    const api = await freshApi();
    const [a, b] = await Promise.all([
      ensureProfile('checkout', { api }),
      ensureProfile('checkout', { api }),
    ]);
    expect(a.id).toBe(b.id);
    expect(a.store_cache).toBe(true);
    const again = await ensureProfile('checkout', { api });
    expect(again.id).toBe(a.id);
    expect((await api.profiles.list()).filter((p) => p.name === 'checkout')).toHaveLength(1);
  });

  it('at the profile limit, lists the existing profiles and how to delete one', async () => {
    const api = await freshApi({ profiles: 2 });
    await ensureProfile('alpha', { api });
    await ensureProfile('beta', { api });
    const err: any = await ensureProfile('gamma', { api }).catch((e) => e);
    expect(err).toBeInstanceOf(ProfileLimitError);
    expect(err.existing).toEqual(expect.arrayContaining(['alpha', 'beta']));
    expect(err.message).toMatch(
      /profile limit \(2\) is reached\. Existing profiles: "alpha", "beta"/,
    );
    expect(err.message).toMatch(/remote-browser profiles delete <name>/);
  });
});
