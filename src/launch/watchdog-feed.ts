/**
 * What the watchdog child hears from this process: what every client holds now, then each
 * change, as the messages watchdog-mirror.ts reads. Apart from the spawning (watchdog.ts) so it
 * runs, and is tested, in-process.
 */

import { liveRegistries, observeRegistries } from './launch-registry.js';
import type { CreateIntent } from './ledger.js';
import type { WatchdogIntent, WatchdogMessage } from './watchdog-mirror.js';

/** Only what the watchdog needs to match an orphan: never the origin or the pid. */
const intentOf = ({ intent, at, targeting }: CreateIntent): WatchdogIntent => ({
  intent,
  at,
  targeting,
});

/** Sends the current state, then every change, until the returned function is called. */
export function feedWatchdog(send: (message: WatchdogMessage) => void): () => void {
  for (const registry of liveRegistries()) {
    for (const lease of registry.leases()) send({ add: lease.id });
    for (const create of registry.creates()) send({ intent: intentOf(create.intent) });
  }
  return observeRegistries({
    lease: (lease, event) => send(event === 'opened' ? { add: lease.id } : { remove: lease.id }),
    // A create's session and its intent's end travel in one message: a SIGKILL between two
    // messages (while other work delays the lease's `add`) would leave the watchdog knowing
    // neither, and the session running.
    create: (intent, event, createdId) =>
      send(
        event === 'started'
          ? { intent: intentOf(intent) }
          : { settled: intent.intent, ...(createdId !== undefined ? { add: createdId } : {}) },
      ),
    // A session ended without a lease (an abandoned create's, deleted when it answered) leaves
    // the mirror too, so a later SIGKILL does not DELETE it again.
    ended: (id) => send({ remove: id }),
  });
}
