/**
 * Waiting for a batch: its options and its done-test. Apart from `queries.ts` so that `runMany`
 * (which waits too) needs nothing from the resource that calls it.
 */
import type { CallOptions } from '../../http/call-options.js';
import { OptionChecks } from '../../http/client-options.js';
import type { Batch } from '../schemas/queries.js';

export interface WaitOptions extends CallOptions {
  /**
   * Milliseconds to wait for every row to settle. Default 600000 (10 minutes): most rows take
   * 20–90 s, "occasionally longer". `0` or `Infinity` waits forever.
   */
  timeout?: number | undefined;
  /** Pause between polls. Default 3000 ms (the spec: "every few seconds"). */
  intervalMs?: number | undefined;
  /** Called with every polled batch, the final one included. */
  onProgress?: ((batch: Batch) => void) | undefined;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 600_000;
export const DEFAULT_POLL_INTERVAL_MS = 3_000;

/** True while any row of the batch is still `pending`. */
export function isPending(batch: Batch): boolean {
  return batch.results.some((row) => row.status === 'pending');
}

/** `intervalMs` and `onProgress` (the transport checks `signal` and `timeout`). */
export function checkWaitOptions(what: string, options: WaitOptions): void {
  const checks = new OptionChecks(what);
  if (!checks.object('options', options)) checks.done();
  checks.timeout('options.timeout', options.timeout);
  checks.signal('options.signal', options.signal);
  checks.number('options.intervalMs', options.intervalMs, { min: 0, finite: true });
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    checks.add('options.onProgress', 'must be a function');
  }
  checks.done();
}
