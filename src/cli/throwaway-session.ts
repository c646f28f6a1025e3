/**
 * One session for one job (`screenshot`, `pdf`, `content`, `run`): created with the launch
 * layer (preflight, 429 queue, ledger), ended on every path this process sees: success,
 * failure, and Ctrl-C/SIGTERM, which abort the job first.
 */
import type { BrowserApi } from '../browser-api/index.js';
import type { LaunchRemoteOptions, RemoteSessionInfo } from '../launch/index.js';
import { browserApi } from './clients.js';
import { CliError } from './errors.js';
import type { Output } from './output.js';
import { spinner } from './progress.js';

export interface Throwaway {
  api: BrowserApi;
  info: RemoteSessionInfo;
  /** A secret: carries the session's access token. */
  cdpUrl: string;
  /** Aborted on Ctrl-C / SIGTERM. */
  signal: AbortSignal;
  /** Registers a callback for the interrupt (e.g. forward it to a child). */
  onInterrupt(fn: (signal: NodeJS.Signals) => void): void;
}

export const INTERRUPTED_EXIT_CODE = 130;

export async function withThrowawaySession<T>(
  out: Output,
  targeting: LaunchRemoteOptions,
  what: string,
  body: (session: Throwaway) => Promise<T>,
): Promise<T> {
  const io = out.io;
  const api = await browserApi(io, { sessions: true });
  const controller = new AbortController();
  const listeners: ((signal: NodeJS.Signals) => void)[] = [];
  const dispose = io.onInterrupt?.((signal) => {
    if (!controller.signal.aborted) out.note(`${signal}: ending the session…`);
    controller.abort();
    for (const fn of listeners) fn(signal);
  });
  const interrupted = () =>
    new CliError('interrupted; the session was ended', {
      code: 'interrupted',
      exitCode: INTERRUPTED_EXIT_CODE,
    });
  try {
    const { openSession } = await import('../launch/index.js');
    const spin = spinner(out, 'starting a remote browser…');
    let opened: Awaited<ReturnType<typeof openSession>>;
    try {
      opened = await openSession({ ...targeting, api, signal: controller.signal }, what);
      opened.connected();
      await opened.lookedUp;
    } catch (error) {
      if (controller.signal.aborted) throw interrupted();
      throw error;
    } finally {
      spin.stop();
    }
    try {
      out.note(out.errPaint.dim(`session ${opened.info.id} started`));
      return await body({
        api,
        info: opened.info,
        cdpUrl: opened.cdpUrl(),
        signal: controller.signal,
        onInterrupt: (fn) => listeners.push(fn),
      });
    } catch (error) {
      if (controller.signal.aborted) throw interrupted();
      throw error;
    } finally {
      await opened.finish();
      out.note(out.errPaint.dim(`session ${opened.info.id} ended`));
    }
  } finally {
    dispose?.();
    await api.close();
  }
}
