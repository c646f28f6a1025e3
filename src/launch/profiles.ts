/** Profile reuse: find-or-create by name. */
import { BrowserApi, type Profile } from '../browser-api/index.js';
import type { CallOptions } from '../http/call-options.js';
import { isRateLimitError } from '../http/errors.js';
import { ProfileLimitError } from './errors.js';
import { clientKey, ownClient } from './tracker.js';

/** Find-or-create of a profile by `origin name` in progress, per client: two launches create it once. */
const pendingCreates = new WeakMap<object, Map<string, Promise<Profile>>>();

export interface EnsureProfileOptions extends CallOptions {
  /** Client to use. Default: one built from `token`/`baseUrl` or the environment. */
  api?: BrowserApi;
  /** Browser service token. Default: `REMOTE_BROWSER_TOKEN`. */
  token?: string;
  /** Browser service origin. Default: `REMOTE_BROWSER_URL`. */
  baseUrl?: string;
  /** Persist cookies, storage and cache across sessions; used only when the profile is created. Default: true. */
  storeCache?: boolean;
  /** Pin the exit IP from first use; used only when the profile is created. Default: false. */
  pinIp?: boolean;
  /** Description for a new profile. Default: empty. */
  description?: string;
}

/**
 * Returns the profile named `name`, creating it on first use (with `store_cache` on unless
 * `storeCache: false`). At the account's profile limit the error lists the existing profiles
 * and how to delete one.
 */
export async function ensureProfile(
  name: string,
  options: EnsureProfileOptions = {},
): Promise<Profile> {
  const api =
    options.api ?? ownClient(new BrowserApi({ token: options.token, baseUrl: options.baseUrl }));
  try {
    return await findOrCreateProfile(api, name, options);
  } finally {
    if (!options.api) await api.close();
  }
}

export function findOrCreateProfile(
  api: BrowserApi,
  name: string,
  options: EnsureProfileOptions = {},
): Promise<Profile> {
  if (typeof name !== 'string' || name.trim() === '') {
    return Promise.reject(new TypeError('ensureProfile: name must be a non-empty string'));
  }
  // Two launches on one client asking for the same new profile create it once.
  const pending = pendingCreates.get(clientKey(api)) ?? new Map<string, Promise<Profile>>();
  pendingCreates.set(clientKey(api), pending);
  const key = `${api.origin} ${name}`;
  let found = pending.get(key);
  if (!found) {
    found = findOrCreate(api, name, options).finally(() => pending.delete(key));
    pending.set(key, found);
  }
  return found;
}

async function findOrCreate(
  api: BrowserApi,
  name: string,
  options: EnsureProfileOptions,
): Promise<Profile> {
  const call = { signal: options.signal, timeout: options.timeout };
  const existing = await api.profiles.findByName(name, call);
  if (existing) return existing;
  try {
    return await api.profiles.create(
      {
        name,
        store_cache: options.storeCache ?? true,
        pin_ip: options.pinIp ?? false,
        ...(options.description !== undefined ? { description: options.description } : {}),
      },
      call,
    );
  } catch (error) {
    if (!isRateLimitError(error)) {
      // Someone else may have created it meanwhile (unique names): use theirs.
      const raced = await api.profiles.findByName(name, call).catch(() => undefined);
      if (raced) return raced;
      throw error;
    }
    const profiles = await api.profiles.list(call).catch(() => []);
    const names = profiles.map((p) => p.name);
    throw new ProfileLimitError(
      `ensureProfile: cannot create profile "${name}": the account's profile limit (${error.limit ?? names.length}) is reached. ` +
        `Existing profiles: ${names.length ? names.map((n) => `"${n}"`).join(', ') : '(could not list)'}. ` +
        'Delete one with `remote-browser profiles delete <name>` or `api.profiles.delete(id)`, or reuse an existing name.',
      names,
      error,
    );
  }
}
