/** Per-call `{ signal, timeout }`, merged into one signal and one deadline. */

import { AbortError, RequestValidationError, TimeoutError } from './errors.js';
import { sleep } from './node-builtins.js';

export interface CallOptions {
  /** Aborts the call (and any retry or rate-limit wait). */
  signal?: AbortSignal | undefined;
  /**
   * Milliseconds for the whole call, retries included; time spent waiting for a rate-limit slot
   * is not counted. Default: the client's `timeout` option. `0` or `Infinity` means no timeout.
   */
  timeout?: number | undefined;
}

export interface CallScope {
  signal: AbortSignal;
  /** Epoch ms after which the call has timed out, or Infinity (moves while paused). */
  readonly deadline: number;
  /** Turns an abort of `signal` into a TimeoutError or an AbortError naming `what`. */
  abortError(what: string): TimeoutError | AbortError;
  /** Stops the timeout clock (a rate-limit wait is not request time). */
  pause(): void;
  /** Restarts the timeout clock with what was left of it. */
  resume(): void;
  dispose(): void;
}

/** Why a timeout value is unusable, or undefined when it is fine (undefined included). */
export function timeoutProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && value >= 0) return undefined; // NaN fails `>= 0`
  return `must be a number of ms >= 0 (0 or Infinity: no timeout); got ${shownValue(value)}`;
}

export function isAbortSignal(value: unknown): value is AbortSignal {
  if (value instanceof AbortSignal) return true;
  // A signal from another realm (a vm context, a polyfill) has the same shape.
  const v = value as { aborted?: unknown; addEventListener?: unknown } | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.aborted === 'boolean' &&
    typeof v.addEventListener === 'function'
  );
}

function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

/**
 * Checks `{ signal, timeout }` of one call before anything is sent: a typo such as
 * `timeout: '5s'` or `signal: 'stop'` would otherwise mean "no timeout" or crash deep inside.
 */
export function checkCallOptions(what: string, options: unknown): CallOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new RequestValidationError(what, [
      {
        path: 'options',
        message: `must be an object ({ signal?, timeout? }); got ${shownValue(options)}`,
      },
    ]);
  }
  const { signal, timeout } = options as Record<string, unknown>;
  const issues: { path: string; message: string }[] = [];
  const problem = timeoutProblem(timeout);
  if (problem) issues.push({ path: 'options.timeout', message: problem });
  if (signal !== undefined && !isAbortSignal(signal)) {
    issues.push({
      path: 'options.signal',
      message: `must be an AbortSignal (e.g. AbortSignal.timeout(5000)); got ${shownValue(signal)}`,
    });
  }
  if (issues.length > 0) throw new RequestValidationError(what, issues);
  return options as CallOptions;
}

/** Combines the caller's signal with a timeout (`AbortSignal.any`). */
export function callScope(options: CallOptions, defaultTimeout: number, what = 'call'): CallScope {
  checkCallOptions(what, options);
  const timeout = options.timeout ?? defaultTimeout;
  const hasTimeout = Number.isFinite(timeout) && timeout > 0;
  const timer = new AbortController();
  let remaining = timeout;
  let startedAt = 0;
  let handle: NodeJS.Timeout | undefined;
  const arm = () => {
    startedAt = Date.now();
    handle = setTimeout(
      () => timer.abort(new TimeoutError(`timed out after ${timeout} ms`)),
      Math.max(0, remaining),
    );
    handle.unref?.();
  };
  if (hasTimeout) arm();
  const signals = [timer.signal, ...(options.signal ? [options.signal] : [])];
  const signal = signals.length === 1 ? timer.signal : AbortSignal.any(signals);
  return {
    signal,
    get deadline() {
      if (!hasTimeout) return Number.POSITIVE_INFINITY;
      return (handle ? startedAt : Date.now()) + remaining;
    },
    abortError(what) {
      if (timer.signal.aborted && !options.signal?.aborted) {
        return new TimeoutError(`${what}: timed out after ${timeout} ms`);
      }
      const reason = options.signal?.reason;
      return new AbortError(`${what}: aborted${reasonText(reason)}`, { cause: reason });
    },
    pause() {
      if (!handle) return;
      clearTimeout(handle);
      handle = undefined;
      remaining -= Date.now() - startedAt;
    },
    resume() {
      if (hasTimeout && !handle && !timer.signal.aborted) arm();
    },
    dispose() {
      if (handle) clearTimeout(handle);
      handle = undefined;
    },
  };
}

export function reasonText(reason: unknown): string {
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
