/** Ends the sessions a previous run on this machine created and never ended (from the ledger). */
import { BrowserApi } from '../browser-api/index.js';
import type { CallOptions } from '../http/call-options.js';
import { isNotFoundError } from '../http/errors.js';
import { compact, isProcessAlive, openEntries, recordEnded } from './ledger.js';

export interface ReapOptions extends CallOptions {
  /** Client to use. Default: one built from the environment. */
  api?: BrowserApi;
  /** Also end sessions of processes that are still alive (e.g. a hung run). Default: false. */
  includeLiveProcesses?: boolean;
}

export interface ReapResult {
  /** Sessions ended now. */
  ended: string[];
  /** Sessions that were already gone (ended or past retention). */
  alreadyGone: string[];
  /** Sessions whose DELETE failed; they stay in the ledger for the next reap. */
  failed: { id: string; error: string }[];
}

export async function reapSessions(options: ReapOptions = {}): Promise<ReapResult> {
  const api = options.api ?? new BrowserApi();
  const result: ReapResult = { ended: [], alreadyGone: [], failed: [] };
  try {
    // This process's own sessions are live leases, never leftovers.
    const candidates = openEntries().filter(
      (e) =>
        e.origin === api.origin &&
        e.pid !== process.pid &&
        (options.includeLiveProcesses === true || !isProcessAlive(e.pid)),
    );
    for (const entry of candidates) {
      try {
        await api.sessions.end(entry.id, {
          signal: options.signal,
          timeout: options.timeout ?? 30_000,
        });
        result.ended.push(entry.id);
        recordEnded(entry.id);
      } catch (error) {
        if (isNotFoundError(error)) {
          result.alreadyGone.push(entry.id);
          recordEnded(entry.id);
        } else {
          result.failed.push({ id: entry.id, error: (error as Error).message });
        }
      }
    }
    compact();
    return result;
  } finally {
    if (!options.api) await api.close();
  }
}
