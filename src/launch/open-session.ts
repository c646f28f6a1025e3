/**
 * The library-agnostic half of launchRemote(): resolve the client, find-or-create the profile,
 * preflight, create (queue on 429, reconcile lost creates), and hand the adapter the session
 * (opened-session.ts). Attaching to a session that exists is attach-session.ts's.
 */
import { BrowserApi, type SessionCreated } from '../browser-api/index.js';
import { type CallScope, callScope } from '../http/call-options.js';
import { type BrowserConfigNeeds, resolveBrowserConfig } from '../http/config.js';
import { sharedDispatcher } from '../http/shared-dispatcher.js';
import { createSession } from './create-session.js';
import { LaunchError } from './errors.js';
import { leaseSession, type OpenedSession } from './opened-session.js';
import { DEFAULT_LAUNCH_TIMEOUT, type LaunchRemoteOptions } from './options.js';
import { preflight } from './preflight.js';
import { findOrCreateProfile } from './profiles.js';
import { lookUpConnection } from './session-info.js';
import type { Slot } from './slots.js';
import { toWireSession } from './to-wire.js';
import { ownClient, tracker } from './tracker.js';

export type { OpenedSession } from './opened-session.js';
export type { RemoteSessionInfo } from './session-info.js';

export async function openSession(
  options: LaunchRemoteOptions,
  what: string,
  /** A drop-in's `reuseKeyOf(options)`: after a drop, its close() keeps the session for the next launch. */
  reuseKey?: string,
): Promise<OpenedSession> {
  if (options.profile !== undefined && options.profileId !== undefined) {
    throw new LaunchError(`${what}: pass either \`profile\` (a name) or \`profileId\`, not both`);
  }
  const { api, ownsApi } = await clientFor(options, { proxyPassword: true });
  const scope = launchScope(options);
  const call = { signal: scope.signal, timeout: remaining(scope) };

  let created: SessionCreated;
  let slot: Slot;
  let profile: Record<string, unknown> | undefined;
  try {
    const wire = toWireSession(options);
    if (options.profile !== undefined) {
      const spec =
        typeof options.profile === 'string' ? { name: options.profile } : options.profile;
      const found = await findOrCreateProfile(api, spec.name, {
        ...call,
        ...(spec.storeCache !== undefined ? { storeCache: spec.storeCache } : {}),
        ...(spec.pinIp !== undefined ? { pinIp: spec.pinIp } : {}),
      });
      wire.profile_id = found.id;
      profile = found;
    }
    const mode = options.preflight ?? true;
    if (mode !== false)
      await preflight(api, wire, mode, what, { signal: scope.signal, timeout: remaining(scope) });
    const body = {
      ...wire,
      ...(options.proxyPassword !== undefined ? { proxy_password: options.proxyPassword } : {}),
    };
    ({ created, slot } = await createSession(api, body as Parameters<typeof createSession>[1], {
      scope,
      waitForSlot: options.waitForSlot ?? true,
      what,
    }));
  } catch (error) {
    scope.dispose();
    // A create left running in the background still needs the client to delete its session.
    if (ownsApi) void tracker.settledCleanups(api).then(() => api.close());
    if (scope.signal.aborted && !(error instanceof LaunchError)) throw scope.abortError(what);
    throw error;
  }

  // Not awaited here: the adapter's connect needs only the cdp_url, so the two run together.
  const connection = lookUpConnection(api, created.id);
  // The lease holds the slot: it frees when the session is no longer ours (deleted, or kept).
  return leaseSession({
    api,
    ownsApi,
    scope,
    created,
    slot,
    connection,
    options,
    what,
    reuseKey,
    ...(profile ? { profile } : {}),
  });
}

/**
 * The caller's client, or one of our own (closed when the session is done with it) on the
 * process-wide connection pool, so consecutive launches reuse one keep-alive connection.
 */
export async function clientFor(
  options: LaunchRemoteOptions,
  needs: BrowserConfigNeeds = {},
): Promise<{ api: BrowserApi; ownsApi: boolean }> {
  if (options.api) return { api: options.api, ownsApi: false };
  const { token, baseUrl, proxyPassword } = options;
  // Everything a launch needs is named in one error, before any request.
  resolveBrowserConfig({ token, baseUrl, proxyPassword }, process.env, needs);
  const dispatcher = await sharedDispatcher();
  const api = ownClient(new BrowserApi({ token, baseUrl, proxyPassword, dispatcher }));
  return { api, ownsApi: true };
}

/** The whole launch's deadline and signal (a wait for a free slot included). */
export function launchScope(options: LaunchRemoteOptions): CallScope {
  const timeout = options.timeout ?? DEFAULT_LAUNCH_TIMEOUT;
  return callScope({ signal: options.signal, timeout }, timeout);
}

export function remaining(scope: CallScope): number {
  const left = scope.deadline - Date.now();
  return Number.isFinite(left) ? Math.max(1, left) : 0;
}
