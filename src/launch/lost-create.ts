/**
 * A create whose response was lost (the connection dropped after sending, the create's own
 * generous timeout, or a gateway's 502/504 after the service handled it) is never repeated
 * blindly: the running sessions created since the call that nobody on this machine knows
 * about and that match the requested targeting are ended, looking twice to catch a create the
 * service finishes late.
 */

import type { BrowserApi } from '../browser-api/index.js';
import { createDebug } from '../http/debug.js';
import { isApiError, isConnectionError, isTimeoutError } from '../http/errors.js';
import { sleep } from '../http/node-builtins.js';
import type { InFlightCreate } from './creates-in-flight.js';
import { LaunchError } from './errors.js';
import { defaultRegistry, liveRegistries, registryOf } from './launch-registry.js';
import { knownIds, recordEnded } from './ledger.js';
import { isOrphanOf } from './orphan-match.js';

const debug = createDebug('launch');

/** Second look for a session the service finished creating after the response was lost. */
const RECHECK_AFTER_MS = 2_000;

/** True when the create may have been handled although its answer never arrived. */
export function isLostCreate(error: unknown): boolean {
  return (
    isTimeoutError(error) ||
    (isConnectionError(error) && error.requestSent) ||
    // A gateway in front of the service gave up waiting: the service may have finished.
    (isApiError(error) && (error.status === 502 || error.status === 504))
  );
}

/** Ends what the lost create may have left running, settles its intent; returns the launch's error. */
export async function reconcileLostCreate(
  create: InFlightCreate,
  what: string,
  error: unknown,
): Promise<LaunchError> {
  const ended = await reconcile(create, { waitForOthers: true, looks: 2 }).catch((e: unknown) => {
    debug(`reconciliation failed: ${(e as Error).message}`);
    return undefined;
  });
  if (ended !== undefined) create.settle();
  const outcome =
    ended === undefined
      ? 'reconciliation could not list the running sessions; run `remote-browser sessions reap` to be sure nothing is left running'
      : ended.length > 0
        ? `the session the service created meanwhile (${ended.join(', ')}) was ended`
        : 'no session was left running';
  return new LaunchError(
    `${what}: the create request got no answer (${(error as Error).message}); ${outcome}. It was not retried.`,
    { cause: error, sessionId: ended?.[0] },
  );
}

/**
 * Ends the running sessions that may be this create's (see orphan-match.ts); looks `looks`
 * times, a moment apart, for a create the service completes late. Returns their ids.
 */
export async function reconcile(
  create: InFlightCreate,
  how: { waitForOthers: boolean; looks: 1 | 2 },
): Promise<string[]> {
  const { api, intent } = create;
  // Let this process's other creates (every client's) finish, so their sessions count as known.
  if (how.waitForOthers) {
    const others = liveRegistries()
      .flatMap((registry) => registry.creates())
      .filter((c) => c !== create);
    await Promise.allSettled(others.map((c) => c.call));
  }
  const ended: string[] = [];
  const match = { sinceMs: Date.parse(intent.at), targeting: intent.targeting };
  for (let look = 0; look < how.looks; look++) {
    if (look > 0) await sleep(RECHECK_AFTER_MS);
    const known = new Set([...knownIds(), ...createdHereAnywhere(), ...ended]);
    const orphans = (await listRunning(api)).filter((s) => isOrphanOf(s, match, known));
    // Through the registry: another create's reconciliation that finds the same one, or the
    // exit hooks ending what its create returned, share this DELETE.
    await Promise.all(
      orphans.map((s) =>
        registryOf(api)
          .endOnce(api, s.id, 15_000)
          .then(
            () => recordEnded(s.id, 'reap'),
            () => undefined,
          ),
      ),
    );
    ended.push(...orphans.map((s) => s.id));
  }
  if (ended.length) debug(`reconciled: ended ${ended.join(', ')}`);
  return ended;
}

/** Ids a create handed any client of this process (the ledger has them too, unless unwritable). */
function createdHereAnywhere(): string[] {
  const registries = new Set([defaultRegistry, ...liveRegistries()]);
  return [...registries].flatMap((registry) => [...registry.created]);
}

function listRunning(api: BrowserApi) {
  return api.sessions.list({ status: 'running' }, { timeout: 15_000 }).then((list) =>
    list.map((s) => ({
      id: s.id,
      created_at: s.created_at,
      config: s.config as Record<string, unknown> | undefined,
    })),
  );
}
