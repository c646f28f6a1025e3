/**
 * Everything this process must end on its way out (exit hooks): every lease, and every create
 * still on the wire, of every client (each client's registry, launch-registry.ts). A create that
 * answers within the grace period has its session deleted; one that does not (or whose answer
 * was lost) is reconciled like a lost create; an intent that finds nothing while its create is
 * still pending stays open in the ledger for `reap`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isNotFoundError } from '../http/errors.js';
import { type InFlightCreate, type LaunchRegistry, liveRegistries } from './launch-registry.js';
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
    await create.api.sessions.end(outcome.created, { timeout: 15_000 }).then(
      () => recordEnded(outcome.created),
      (e: unknown) => {
        if (isNotFoundError(e)) recordEnded(outcome.created, 'gone');
      },
    );
    return;
  }
  if ('error' in outcome && !isLostCreate(outcome.error)) return create.settle();
  const ended = await reconcile(create, { waitForOthers: false, looks: 1 });
  if (ended.length > 0 || 'error' in outcome) create.settle();
}
