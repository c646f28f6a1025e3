/**
 * A create the launch stopped waiting for (its timeout or signal fired) is never cut off
 * mid-flight: the service could finish it a moment later, leaving a session nobody knows. It
 * is handed off instead: it keeps running in the background and the session it returns is
 * deleted. The launch's own client is closed only after these clean-ups.
 */
import type { BrowserApi } from '../browser-api/index.js';
import type { CallScope } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import type { InFlightCreate } from './creates-in-flight.js';
import { LaunchError } from './errors.js';
import { registryOf } from './launch-registry.js';
import { recordEnded } from './ledger.js';
import { isLostCreate, reconcile } from './lost-create.js';

const debug = createDebug('launch');

/**
 * Background clean-ups per client, so a client is closed only after them. Per client, not per
 * registry: the launches without `api` share a registry but each closes its own client.
 */
const cleanups = new WeakMap<BrowserApi, Set<Promise<unknown>>>();

/** Resolves when every background clean-up started for `api` has settled. */
export function settledCleanups(api: BrowserApi): Promise<void> {
  return Promise.allSettled([...(cleanups.get(api) ?? [])]).then(() => undefined);
}

function track(api: BrowserApi, work: Promise<unknown>): void {
  let set = cleanups.get(api);
  if (!set) {
    set = new Set();
    cleanups.set(api, set);
  }
  const entry = work.catch(() => {});
  set.add(entry);
  void entry.finally(() => set.delete(entry));
}

/** Lets `call` finish in the background, deletes what it returns; returns the launch's error. */
export function handOffAbandonedCreate(
  create: InFlightCreate,
  scope: CallScope,
  what: string,
  error: unknown,
): LaunchError {
  const { api, call } = create;
  track(
    api,
    call.then(
      async (created) => {
        debug(`deleting session ${created.id}: its launch gave up while it was being created`);
        const ended = await registryOf(api).endOnce(api, created.id, 30_000);
        recordEnded(created.id, ended === 'gone' ? 'gone' : 'close');
      },
      async (late: unknown) => {
        if (!isLostCreate(late)) return create.settle();
        await reconcile(create, { waitForOthers: true, looks: 2 });
        create.settle();
      },
    ),
  );
  return new LaunchError(
    `${what}: ${scope.abortError(what).message.replace(`${what}: `, '')} while the service was creating the session; it will be deleted as soon as the service answers (the create was not retried)`,
    { cause: error },
  );
}
