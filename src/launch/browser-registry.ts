/** Native browser object → its remote session, for `sessionOf()` and `recordingOf()`. */
import type { SessionEnd } from './end-reason.js';
import { LaunchError } from './errors.js';
import type { OpenedSession } from './open-session.js';
import type { RecordingDownload } from './recordings.js';
import type { RemoteSessionInfo } from './session-info.js';

const sessions = new WeakMap<object, OpenedSession>();

export function register(browser: object, opened: OpenedSession): void {
  sessions.set(browser, opened);
}

/**
 * Ends the browser's session alongside `disconnect`, the session's end started first (see
 * `OpenedSession.end`): for a close that is not the browser's own (a drop-in's persistent context).
 */
export function endSessionOf(browser: object, disconnect: () => Promise<unknown>): Promise<void> {
  const opened = sessions.get(browser);
  if (!opened)
    return Promise.reject(new TypeError('this browser was not launched by remote-browser'));
  return opened.end(disconnect);
}

/** The remote session behind a browser from launchRemote()/connectRemote(). */
export function sessionOf(browser: object): RemoteSessionInfo {
  const opened = sessions.get(browser);
  if (!opened) throw new TypeError('sessionOf: this browser was not launched by remote-browser');
  return opened.info;
}

/** The session id behind a browser of ours; undefined for any other object. */
export function sessionIdOf(browser: unknown): string | undefined {
  return typeof browser === 'object' && browser !== null
    ? sessions.get(browser)?.info.id
    : undefined;
}

/** True while the browser's connection has dropped without close() and its session may be kept. */
export function wasDropped(browser: object): boolean {
  return sessions.get(browser)?.wasDropped() ?? false;
}

/**
 * The session id of a browser whose connection dropped and whose session is kept for a
 * re-attach (waits for the service's answer on the drop); undefined otherwise. For the pools.
 */
export async function keptSessionOf(browser: object): Promise<string | undefined> {
  const opened = sessions.get(browser);
  return opened && (await opened.keptAfterDrop()) ? opened.info.id : undefined;
}

/**
 * Whether the browser's session still runs, asked of the service (`GET /sessions/{id}`): the
 * pools' check of a warm session that sat idle. False once it has ended (its reason said, as
 * after a drop) or the browser was closed; rejects when the service did not answer.
 */
export function sessionRunning(browser: object, timeoutMs: number): Promise<boolean> {
  const opened = sessions.get(browser);
  if (!opened)
    return Promise.reject(
      new TypeError('sessionRunning: this browser was not launched by remote-browser'),
    );
  return opened.stillRunning(timeoutMs);
}

/**
 * Why the browser's session went away without its close(), once the service has answered on
 * a drop (undefined when it did not go away, or the browser is not ours).
 */
export async function sessionEndOf(browser: object): Promise<SessionEnd | undefined> {
  const opened = sessions.get(browser);
  if (!opened) return undefined;
  await opened.keptAfterDrop();
  return opened.info.endReason;
}

/**
 * Resolves with the recording files once the browser is closed and the recording is published
 * and downloaded (launched with `recording: { dir }`).
 */
export function recordingOf(browser: object): Promise<RecordingDownload> {
  const opened = sessions.get(browser);
  if (!opened)
    return Promise.reject(
      new TypeError('recordingOf: this browser was not launched by remote-browser'),
    );
  if (!opened.recording) {
    return Promise.reject(
      new LaunchError(
        'recordingOf: launch with `recording: { dir }` to download the recording (and without keepSession)',
      ),
    );
  }
  return opened.recording;
}
