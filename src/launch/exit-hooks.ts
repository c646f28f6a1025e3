/**
 * Opt-in process-exit hooks: on SIGINT/SIGTERM, beforeExit and an uncaught exception (or an
 * unhandled rejection Node raises as one), delete the sessions this process still holds and
 * reconcile its creates in flight, every client's (the tracker's `endEverything`). One
 * set of listeners per process, since signals are the process's. The host's own behaviour is kept: when the host listens
 * itself we only clean up; when nobody else does, we clean up and then do what Node would have
 * done (re-raise the signal; print the error and exit with code 1). The listeners are
 * cooperative ones of http/process-signals.ts, the module the emulator's handlers use too.
 * Every process hook of the library is installed here (`onIdle` too); what they installed is
 * the registry's (`tracker.hooks`).
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

/** Installs the hooks once per process; returns a function that removes them. */
export function installExitHooks(options: ExitHookOptions = {}): () => void {
  const { hooks } = tracker;
  if (hooks.exit) return hooks.exit;
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
    hooks.exit = undefined;
  };
  hooks.exit = uninstall;
  return uninstall;
}

/**
 * Runs `end` once the event loop runs dry (`beforeExit`), installed once per process and not
 * opt-in: the sessions a drop-in's close() left kept for the next drop-in launch
 * (reconnect-window.ts `keptAfterClose`) can be taken by nothing else, so they end there
 * instead of waiting for their window (whose timer does not hold the process).
 */
export function onIdle(end: () => void): void {
  if (tracker.hooks.idle) return;
  tracker.hooks.idle = true;
  onProcessEnd('beforeExit', end);
}
