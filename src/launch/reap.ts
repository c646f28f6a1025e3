/**
 * Ends the sessions a previous run on this machine created and never ended (from the ledger),
 * and reconciles the creates a dead run left on the wire. Only sessions the service reports as
 * running are DELETEd and counted as `ended`: one the watchdog or a cut-off exit already ended
 * is `alreadyGone`, never counted twice. Every end and every settled intent is the tracker's
 * transition (tracker.ts); the ledger is compacted on every reap.
 */
import { BrowserApi } from '../browser-api/index.js';
import type { CallOptions } from '../http/call-options.js';
import {
  compact,
  contestedIntents,
  findOrphans,
  isProcessAlive,
  knownIds,
  openEntries,
  openIntents,
  type RunningSession,
} from './ledger.js';
import { tracker } from './tracker.js';

export interface ReapOptions extends CallOptions {
  /** Client to use. Default: one built from the environment. */
  api?: BrowserApi;
  /**
   * Also end sessions of processes that are still alive (e.g. a hung run). Sessions whose
   * DELETE failed are ended either way: their process already tried to end them. Default: false.
   */
  includeLiveProcesses?: boolean;
}

export interface ReapResult {
  /** Sessions that were running and were ended now (reconciled creates included). */
  ended: string[];
  /** Sessions that were already gone (ended or past retention). */
  alreadyGone: string[];
  /** Sessions whose DELETE failed; they stay in the ledger for the next reap. */
  failed: { id: string; error: string }[];
}

export async function reapSessions(options: ReapOptions = {}): Promise<ReapResult> {
  const api = options.api ?? new BrowserApi();
  const result: ReapResult = { ended: [], alreadyGone: [], failed: [] };
  const call = { signal: options.signal, timeout: options.timeout ?? 30_000 };
  // This process's own sessions and creates are live, never leftovers.
  const ours = (e: { origin: string; pid: number }) =>
    e.origin === api.origin &&
    e.pid !== process.pid &&
    (options.includeLiveProcesses === true || !isProcessAlive(e.pid));
  try {
    const candidates = openEntries().filter(
      (e) => ours(e) || (e.state === 'delete-failed' && e.origin === api.origin),
    );
    const intents = openIntents().filter(ours);
    if (candidates.length === 0 && intents.length === 0) return result;
    const running: RunningSession[] = (await api.sessions.list({ status: 'running' }, call)).map(
      (s) => ({ id: s.id, created_at: s.created_at, config: s.config as Record<string, unknown> }),
    );
    const live = new Set(running.map((s) => s.id));
    const end = async (id: string) => {
      try {
        const how = await tracker.end(api, id, 'reap', call);
        (how === 'deleted' ? result.ended : result.alreadyGone).push(id);
      } catch (error) {
        result.failed.push({ id, error: (error as Error).message });
      }
    };
    for (const entry of candidates) {
      if (live.has(entry.id)) await end(entry.id);
      else {
        result.alreadyGone.push(entry.id);
        tracker.forgotten({ id: entry.id });
      }
    }
    const known = knownIds();
    const contested = contestedIntents(new Set(intents.map((i) => i.intent)), api.origin);
    const orphans = findOrphans(running, intents, known, contested);
    for (const orphan of orphans) await end(orphan.id);
    // A session left to a live process's create keeps the intents open for the next reap.
    if (findOrphans(running, intents, known).length === orphans.length)
      for (const intent of intents) tracker.forgotten({ intent: intent.intent });
    return result;
  } finally {
    // Every reap leaves the ledger at its open entries and bounded tail, whatever it found.
    compact();
    if (!options.api) await api.close();
  }
}
