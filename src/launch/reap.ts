/**
 * Ends the sessions a previous run on this machine created and never ended (from the ledger),
 * and reconciles the creates a dead run left on the wire. Only sessions the service reports as
 * running are DELETEd and counted as `ended`: one the watchdog or a cut-off exit already ended
 * is `alreadyGone`, never counted twice.
 */
import { BrowserApi } from '../browser-api/index.js';
import type { CallOptions } from '../http/call-options.js';
import { isNotFoundError } from '../http/errors.js';
import {
  compact,
  isProcessAlive,
  knownIds,
  type LedgerEntry,
  openEntries,
  openIntents,
  recordCreateSettled,
  recordEnded,
} from './ledger.js';
import { isOrphanOf, type RunningSession } from './orphan-match.js';

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
    for (const entry of candidates) {
      if (!live.has(entry.id)) {
        result.alreadyGone.push(entry.id);
        recordEnded(entry.id, 'gone');
        continue;
      }
      await end(api, entry, call, result);
    }
    const known = knownIds();
    for (const intent of intents) {
      const match = { sinceMs: Date.parse(intent.at), targeting: intent.targeting };
      for (const orphan of running.filter((s) => isOrphanOf(s, match, known))) {
        known.add(orphan.id);
        await end(api, { id: orphan.id }, call, result);
      }
      recordCreateSettled(intent.intent);
    }
    return result;
  } finally {
    // Every reap leaves the ledger at its open entries and bounded tail, whatever it found.
    compact();
    if (!options.api) await api.close();
  }
}

async function end(
  api: BrowserApi,
  entry: Pick<LedgerEntry, 'id'>,
  call: CallOptions,
  result: ReapResult,
): Promise<void> {
  try {
    await api.sessions.end(entry.id, call);
    result.ended.push(entry.id);
    recordEnded(entry.id, 'reap');
  } catch (error) {
    if (isNotFoundError(error)) {
      result.alreadyGone.push(entry.id);
      recordEnded(entry.id, 'gone');
    } else {
      result.failed.push({ id: entry.id, error: (error as Error).message });
    }
  }
}
