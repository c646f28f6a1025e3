/**
 * The one polling helper: explicit done-test, an interval, a deadline, an AbortSignal. Rate
 * limiting is the fetch function's business (pass a shared RateLimiter to the transport), so
 * many pollers sharing one limiter stay within the service's limit together.
 */
import { type CallOptions, callScope, waitInScope } from './call-options.js';

export interface PollOptions<T> extends CallOptions {
  /** Names the operation in errors, e.g. `recordings.waitForPublished(<id>)`. */
  what: string;
  /** Pause between polls, in ms, or a function of the attempt number (from 0). */
  intervalMs: number | ((attempt: number) => number);
  /** True when polling can stop. */
  isDone(value: T): boolean;
  /** Called with every polled value, the final one included. */
  onProgress?(value: T): void;
}

/**
 * Calls `fetchOnce` until `isDone` accepts its value. Each call receives the combined signal,
 * so an in-flight request is cancelled by the deadline too. Default timeout: none.
 */
export async function poll<T>(
  fetchOnce: (options: { signal: AbortSignal }) => Promise<T>,
  options: PollOptions<T>,
): Promise<T> {
  const scope = callScope(options, Number.POSITIVE_INFINITY, options.what);
  try {
    for (let attempt = 0; ; attempt++) {
      if (scope.signal.aborted) throw scope.abortError(options.what);
      let value: T;
      try {
        value = await fetchOnce({ signal: scope.signal });
      } catch (error) {
        if (scope.signal.aborted) throw scope.abortError(options.what);
        throw error;
      }
      options.onProgress?.(value);
      if (options.isDone(value)) return value;
      const interval =
        typeof options.intervalMs === 'function' ? options.intervalMs(attempt) : options.intervalMs;
      await waitInScope(interval, scope, options.what);
    }
  } finally {
    scope.dispose();
  }
}
