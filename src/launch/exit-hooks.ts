/**
 * Opt-in process-exit hooks: on SIGINT/SIGTERM and beforeExit, delete the sessions this
 * process still holds. The host's own shutdown behaviour is kept: when the host listens for
 * the signal itself we only clean up; when nobody else does, we clean up and then re-raise
 * the signal so the process ends exactly as it would have without us.
 */
import { releaseAll } from './session-lease.js';

export interface ExitHookOptions {
  /** Signals to hook. Default: `['SIGINT', 'SIGTERM']`. */
  signals?: NodeJS.Signals[];
  /** Also clean up on `beforeExit` (the event loop ran dry). Default: true. */
  beforeExit?: boolean;
  /** Longest wait for the deletions on a signal, in ms. Default: 5000. */
  timeoutMs?: number;
}

let installed: (() => void) | undefined;

/** Installs the hooks once per process; returns a function that removes them. */
export function installExitHooks(options: ExitHookOptions = {}): () => void {
  if (installed) return installed;
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  const timeoutMs = options.timeoutMs ?? 5000;

  const bounded = () =>
    Promise.race([
      releaseAll(),
      new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);

  const onSignal = (signal: NodeJS.Signals) => {
    const hostHandles = process.listenerCount(signal) > 1;
    void bounded().finally(() => {
      if (hostHandles) return;
      uninstall();
      process.kill(process.pid, signal);
    });
  };
  const onBeforeExit = () => {
    void releaseAll();
  };

  for (const signal of signals) process.on(signal, onSignal);
  if (options.beforeExit !== false) process.on('beforeExit', onBeforeExit);

  const uninstall = () => {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('beforeExit', onBeforeExit);
    installed = undefined;
  };
  installed = uninstall;
  return uninstall;
}
