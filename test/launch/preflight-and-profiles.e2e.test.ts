import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { PreflightError, ProfileLimitError } from '../../src/launch/errors.js';
import { clearPreflightCache, preflight } from '../../src/launch/preflight.js';
import { ensureProfile } from '../../src/launch/profiles.js';

let emu: EmulatorHandle;
let api: BrowserApi;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu?.close());
afterEach(async () => {
  await api?.close();
  clearPreflightCache();
});

async function freshApi(limits?: { profiles?: number }) {
  const account = await emu.admin.createAccount(limits ? { limits } : {});
  api = new BrowserApi({
    baseUrl: emu.url,
    token: account.token,
    proxyPassword: account.proxyPassword,
  });
}

describe('preflight', () => {
  it('validates each targeting once per process, and again for a different one', async () => {
    await freshApi();
    const validate = vi.spyOn(api.configurations, 'validate');
    const call = { timeout: 10_000 };
    await preflight(api, { country: 'us', filter_mode: 'speed' }, true, 'launchRemote', call);
    await preflight(api, { filter_mode: 'speed', country: 'us' }, true, 'launchRemote', call);
    expect(validate).toHaveBeenCalledTimes(1);
    await preflight(api, { country: 'de' }, true, 'launchRemote', call);
    expect(validate).toHaveBeenCalledTimes(2);
  });

  it("lists each of the service's issues with its suggestion", async () => {
    await freshApi();
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

describe('ensureProfile', () => {
  it('finds a profile by name instead of creating it twice, also under concurrency', async () => {
    await freshApi();
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
    await freshApi({ profiles: 2 });
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
