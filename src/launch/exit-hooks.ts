/**
 * Opt-in process-exit hooks: on SIGINT/SIGTERM, beforeExit and an uncaught exception (or an
 * unhandled rejection Node raises as one), delete the sessions this process still holds and
 * reconcile its creates in flight, every client's (the tracker's `endEverything`). One
 * set of listeners per process, since signals are the process's. The host's own behaviour is kept: when the host listens
 * itself we only clean up; when nobody else does, we clean up and then do what Node would have
 * done (re-raise the signal; print the error and exit with code 1). The listeners are
 * cooperative ones of http/process-signals.ts, the module the emulator's handlers use too.
 */
import { cleanupOnSignals, cleanupOnUncaught, onProcessEnd } from '../http/process-signals.js';
import { recorder } from './metering.js';
import { tracker } from './tracker.js';

/** Shared by every signal handler that re-raises itself when no host handler is left. */
export { COOPERATIVE } from '../http/process-signals.js';

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

  const removers = [cleanupOnSignals(signals, bounded, { beforeReraise: () => uninstall() })];
  if (options.beforeExit !== false) {
    removers.push(
      onProcessEnd('beforeExit', () => {
        recorder.exiting();
        void tracker.endEverything(0);
      }),
    );
  }
  if (options.uncaught !== false) {
    removers.push(cleanupOnUncaught(bounded, { beforeExit: () => uninstall() }));
  }

  const uninstall = () => {
    for (const remove of removers) remove();
    installed = undefined;
  };
  installed = uninstall;
  return uninstall;
}
