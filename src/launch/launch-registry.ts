/**
 * What launch/ remembers between calls, owned per BrowserApi (as Playwright's `Connection` owns
 * the objects it created) instead of per process: a client's cache and de-duplication end with
 * the client, and a test's own client starts clean without anyone clearing module state. One
 * default instance serves the clients launch/ builds for itself (no `api` option), so launches
 * without a client still share what they learn, as before.
 *
 * Moved here so far: the preflight cache and the pending profile creates. Still module state
 * (issue 12 §5, not done): creates in flight, active leases, exit hooks, the watchdog.
 */
import type { BrowserApi, Profile } from '../browser-api/index.js';
import type { PreflightIssue } from './errors.js';

export class LaunchRegistry {
  /** Preflight results by `origin key` (preflight.ts); a failed check is removed again. */
  readonly preflights = new Map<string, Promise<PreflightIssue[]>>();
  /** Find-or-create of a profile by `origin name` in progress: two launches create it once. */
  readonly profileCreates = new Map<string, Promise<Profile>>();
}

/** The registry of every client launch/ built itself. */
export const defaultRegistry = new LaunchRegistry();

const owners = new WeakMap<BrowserApi, LaunchRegistry>();

/** The registry `api` owns: its own for a caller's client, the default one for ours. */
export function registryOf(api: BrowserApi): LaunchRegistry {
  let registry = owners.get(api);
  if (!registry) {
    registry = new LaunchRegistry();
    owners.set(api, registry);
  }
  return registry;
}

/** Marks a client launch/ built for itself: it shares the default registry. */
export function ownClient(api: BrowserApi): BrowserApi {
  owners.set(api, defaultRegistry);
  return api;
}
