/**
 * Opt-in process-exit hooks: on SIGINT/SIGTERM, beforeExit and an uncaught exception (or an
 * unhandled rejection Node raises as one), delete the sessions this process still holds and
 * reconcile its creates in flight, every client's (the tracker's `endEverything`). One
 * set of listeners per process, since signals are the process's. The host's own behaviour is kept: when the host listens
 * itself we only clean up; when nobody else does, we clean up and then do what Node would have
 * done (re-raise the signal; print the error and exit with code 1).
 *
 * Other handlers that re-raise on their own (the emulator's, another copy of this library)
 * mark themselves with COOPERATIVE: they are not "the host", or each would wait for the other
 * and Ctrl-C would never end the process.
 */
import { nodeUtil } from '../http/node-builtins.js';
import { recorder } from './metering.js';
import { tracker } from './tracker.js';

/** Shared by every signal handler that re-raises itself when no host handler is left. */
export const COOPERATIVE: unique symbol = Symbol.for('remote-browser.cooperative-signal-handler');

export interface ExitHookOptions {
  /** Signals to hook. Default: `['SIGINT', 'SIGTERM']`. */
  signals?: NodeJS.Signals[];
  /** Also clean up on `beforeExit` (the event loop ran dry). Default: true. */
  beforeExit?: boolean;
  /**
   * Also clean up on an uncaught exception (and an unhandled rejection, which Node raises as
   * one), then let the host's handler run, or, without one, print the error and exit 1 as
   * Node would. Default: true.
   */
  uncaught?: boolean;
  /** Longest wait for the deletions, in ms. Default: 5000. */
  timeoutMs?: number;
}

let installed: (() => void) | undefined;

/** Handlers of `event` that belong to the host (not ours, not another cooperative one). */
function hostListeners(event: string): number {
  return process
    .listeners(event as NodeJS.Signals)
    .filter((l) => !(l as unknown as Record<symbol, unknown>)[COOPERATIVE]).length;
}

function cooperative<T extends (...args: never[]) => void>(fn: T): T {
  Object.defineProperty(fn, COOPERATIVE, { value: true });
  return fn;
}

/** Installs the hooks once per process; returns a function that removes them. */
export function installExitHooks(options: ExitHookOptions = {}): () => void {
  if (installed) return installed;
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  const timeoutMs = options.timeoutMs ?? 5000;

  const bounded = () => {
    recorder.exiting();
    return Promise.race([
      tracker.endEverything(Math.max(0, timeoutMs - 1500)),
      new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  };

  const onSignal = cooperative((signal: NodeJS.Signals) => {
    void bounded().finally(() => {
      if (hostListeners(signal) > 0) return;
      uninstall();
      // Another cooperative handler may still be listening: it re-raises in its own time.
      process.kill(process.pid, signal);
    });
  });
  const onBeforeExit = cooperative(() => {
    recorder.exiting();
    void tracker.endEverything(0);
  });
  const onUncaught = cooperative((error: Error) => {
    const hostHandles = hostListeners('uncaughtException') > 0;
    void bounded().finally(() => {
      if (hostHandles) return;
      uninstall();
      process.stderr.write(`${nodeUtil().inspect(error)}\n`);
      process.exit(1);
    });
  });

  for (const signal of signals) process.on(signal, onSignal);
  if (options.beforeExit !== false) process.on('beforeExit', onBeforeExit);
  if (options.uncaught !== false) process.on('uncaughtException', onUncaught);

  const uninstall = () => {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('beforeExit', onBeforeExit);
    process.off('uncaughtException', onUncaught);
    installed = undefined;
  };
  installed = uninstall;
  return uninstall;
}
