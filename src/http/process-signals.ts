/**
 * Signal and exit handling, written once for the library (`installExitHooks()`), the emulator
 * (its Chromium process groups, its CLI) and the CLI's Ctrl-C. Two kinds of listener:
 *
 * - a **host** handler owns the shutdown (the CLI, the emulator in the foreground, a user's own
 *   `process.on('SIGINT')`): while one listens, a signal does not end the process by itself;
 * - a **cooperative** cleanup runs its work and then, when no host handler is left, re-raises the
 *   signal so the process dies of it as Node's default would (exit status 130 for SIGINT, 143 for
 *   SIGTERM in a shell), like the `signal-exit` package.
 *
 * Cooperative listeners carry a registered symbol, so that they do not count one another as the
 * host (or each would wait for the other and Ctrl-C would never end the process), also across
 * two copies of this package in one process.
 *
 * Why not `signal-exit`: it runs only synchronous callbacks before re-raising, while the exit
 * hooks must await their DELETEs first; it has no "leave the shutdown to the host" rule for an
 * uncaught exception; and it is not a dependency here. This module is the part of it the
 * project needs, and no more.
 *
 * No static `node:` import: the adapters' entries load this file (see node-builtins.ts).
 */
import { nodeUtil } from './node-builtins.js';

/** The mark every cooperative listener carries, shared by every copy of remote-browser. */
export const COOPERATIVE: unique symbol = Symbol.for('remote-browser.cooperative-signal-handler');

type Listener = (...args: never[]) => void;

/** Runs `then` after `result` settles when it is a promise, at once otherwise. */
function afterCleanup(result: unknown, then: () => void): void {
  if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
    void Promise.resolve(result).finally(then);
  } else {
    then();
  }
}

function cooperative<T extends Listener>(fn: T): T {
  Object.defineProperty(fn, COOPERATIVE, { value: true });
  return fn;
}

/** Whether a listener that is not cooperative (the host's) listens for `event`. */
export function hostListening(event: NodeJS.Signals | 'uncaughtException'): boolean {
  return process
    .listeners(event as NodeJS.Signals)
    .some((l) => !(l as unknown as Record<symbol, unknown>)[COOPERATIVE]);
}

/**
 * Host handler: `handler` runs on each of `signals` and owns what follows (the process does not
 * end by itself while it listens). Returns the function that removes it.
 */
export function onSignals(
  signals: readonly NodeJS.Signals[],
  handler: (signal: NodeJS.Signals) => void,
): () => void {
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}

export interface CleanupOptions {
  /**
   * Runs, synchronously, once the cleanup is over and no host handler listens for the signal,
   * just before the re-raise (which ends the process without running its `exit` listeners).
   */
  beforeReraise?(signal: NodeJS.Signals): void;
}

/**
 * Cooperative handler: on each of `signals`, runs `cleanup` (awaited when it returns a promise,
 * synchronously otherwise); then, if no host handler listens for that signal, calls
 * `beforeReraise`, removes its listener for that signal and re-raises it. With a host handler
 * it leaves the rest to the host. Returns the function that removes every listener it added.
 */
export function cleanupOnSignals(
  signals: readonly NodeJS.Signals[],
  cleanup: (signal: NodeJS.Signals) => unknown,
  options: CleanupOptions = {},
): () => void {
  const listeners = new Map<NodeJS.Signals, () => void>();
  const finish = (signal: NodeJS.Signals) => {
    if (hostListening(signal)) return;
    options.beforeReraise?.(signal);
    const own = listeners.get(signal);
    if (own) process.off(signal, own);
    // Another cooperative listener may still be there: it re-raises in its own time.
    process.kill(process.pid, signal);
  };
  for (const signal of new Set(signals)) {
    const listener = cooperative(() => {
      afterCleanup(cleanup(signal), () => finish(signal));
    });
    listeners.set(signal, listener);
    process.on(signal, listener);
  }
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}

/**
 * Cooperative `uncaughtException` listener (an unhandled rejection arrives as one): runs
 * `cleanup`; then, if no host listener was there when the error came, calls `beforeExit`,
 * prints the error as Node would and exits with code 1. Returns its remover.
 */
export function cleanupOnUncaught(
  cleanup: (error: Error) => unknown,
  options: { beforeExit?(): void } = {},
): () => void {
  const listener = cooperative((error: Error) => {
    const hostHandles = hostListening('uncaughtException');
    const finish = () => {
      if (hostHandles) return;
      options.beforeExit?.();
      process.stderr.write(`${nodeUtil().inspect(error)}\n`);
      process.exit(1);
    };
    afterCleanup(cleanup(error), finish);
  });
  process.on('uncaughtException', listener);
  return () => void process.off('uncaughtException', listener);
}

/**
 * Cooperative `exit` or `beforeExit` listener (`exit` ones must be synchronous; neither runs
 * when a signal ends the process: see `beforeReraise`). Returns its remover.
 */
export function onProcessEnd(
  event: 'exit' | 'beforeExit',
  listener: (code: number) => void,
): () => void {
  const own = cooperative((code: number) => listener(code));
  process.on(event, own);
  return () => void process.off(event, own);
}
