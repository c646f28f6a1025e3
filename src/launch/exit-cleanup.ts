/**
 * Everything this process must end on its way out (exit hooks): every lease, and every create
 * still on the wire, of every client (each client's registry, launch-registry.ts). A create that
 * answers within the grace period has its session deleted; one that does not (or whose answer
 * was lost) is reconciled like a lost create; an intent that finds nothing while its create is
 * still pending stays open in the ledger for `reap`. Each session gets one DELETE: the creates'
 * reconciliations find the same running sessions, and a create answering meanwhile may return
 * one of them, but every DELETE goes through the client's registry, which sends it once.
 */
import { sleep } from '../http/node-builtins.js';
import {
  type InFlightCreate,
  type LaunchRegistry,
  liveRegistries,
  registryOf,
} from './launch-registry.js';
import { recordEnded } from './ledger.js';
import { isLostCreate, reconcile } from './lost-create.js';
import { releaseAll } from './session-lease.js';

/**
 * Ends every session and every create in flight of `registries` (default: every client's in
 * this process). Never throws.
 */
export async function endEverything(
  graceMs: number,
  registries: () => LaunchRegistry[] = liveRegistries,
): Promise<void> {
  const creates = registries().flatMap((registry) => registry.creates());
  await Promise.allSettled([
    releaseAll(registries()),
    ...creates.map((c) => endCreate(c, graceMs)),
  ]);
  // Leases that a create finishing meanwhile opened.
  await releaseAll(registries());
}

type Outcome = { created: string } | { error: unknown } | { pending: true };

async function endCreate(create: InFlightCreate, graceMs: number): Promise<void> {
  const timer = new AbortController();
  const outcome: Outcome = await Promise.race([
    create.call.then(
      (c): Outcome => ({ created: c.id }),
      (error: unknown): Outcome => ({ error }),
    ),
    sleep(graceMs, { pending: true } as const, { signal: timer.signal, ref: false }).catch(
      (): Outcome => ({ pending: true }),
    ),
  ]);
  timer.abort();
  if ('created' in outcome) {
    const { api } = create;
    await registryOf(api)
      .endOnce(api, outcome.created, 15_000)
      .then(
        (ended) => recordEnded(outcome.created, ended === 'gone' ? 'gone' : 'close'),
        () => undefined,
      );
    return;
  }
  if ('error' in outcome && !isLostCreate(outcome.error)) return create.settle();
  const ended = await reconcile(create, { waitForOthers: false, looks: 1 });
  if (ended.length > 0 || 'error' in outcome) create.settle();
}
