/** Per-call `{ signal, timeout }`, merged into one signal and one deadline. */
import { setTimeout as sleep } from 'node:timers/promises';
import { AbortError, TimeoutError } from './errors.js';

export interface CallOptions {
  /** Aborts the call (and any retry wait). */
  signal?: AbortSignal | undefined;
  /**
   * Milliseconds for the whole call, retries and waits included. Default: the client's
   * `timeout` option. `0` or `Infinity` means no timeout.
   */
  timeout?: number | undefined;
}

export interface CallScope {
  signal: AbortSignal;
  /** Epoch ms after which the call has timed out, or Infinity. */
  deadline: number;
  /** Turns an abort of `signal` into a TimeoutError or an AbortError naming `what`. */
  abortError(what: string): TimeoutError | AbortError;
  dispose(): void;
}

/** Combines the caller's signal with a timeout (`AbortSignal.any`). */
export function callScope(options: CallOptions, defaultTimeout: number): CallScope {
  const timeout = options.timeout ?? defaultTimeout;
  const hasTimeout = Number.isFinite(timeout) && timeout > 0;
  const timer = new AbortController();
  const handle = hasTimeout
    ? setTimeout(() => timer.abort(new TimeoutError(`timed out after ${timeout} ms`)), timeout)
    : undefined;
  handle?.unref?.();
  const signals = [timer.signal, ...(options.signal ? [options.signal] : [])];
  const signal = signals.length === 1 ? timer.signal : AbortSignal.any(signals);
  return {
    signal,
    deadline: hasTimeout ? Date.now() + timeout : Number.POSITIVE_INFINITY,
    abortError(what) {
      if (timer.signal.aborted && !options.signal?.aborted) {
        return new TimeoutError(`${what}: timed out after ${timeout} ms`);
      }
      const reason = options.signal?.reason;
      return new AbortError(`${what}: aborted${reasonText(reason)}`, { cause: reason });
    },
    dispose() {
      if (handle) clearTimeout(handle);
    },
  };
}

function reasonText(reason: unknown): string {
  if (reason instanceof Error && reason.name !== 'AbortError') return ` (${reason.message})`;
  if (typeof reason === 'string') return ` (${reason})`;
  return '';
}

/** Waits `ms`, or rejects with the scope's abort error. */
export async function waitInScope(ms: number, scope: CallScope, what: string): Promise<void> {
  try {
    await sleep(ms, undefined, { signal: scope.signal });
  } catch {
    throw scope.abortError(what);
  }
}

/**
 * Settles like `work`, unless the scope aborts first: then rejects with the scope's error.
 * `work` itself is never cancelled (a create or a connect cut off mid-flight could still
 * finish on the far side): the caller decides what a late result means.
 */
export function raceAbort<T>(work: Promise<T>, scope: CallScope, what: string): Promise<T> {
  if (scope.signal.aborted) return Promise.reject(scope.abortError(what));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(scope.abortError(what));
    scope.signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => scope.signal.removeEventListener('abort', onAbort));
  });
}
