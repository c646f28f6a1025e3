/**
 * A session a launch holds, as its adapter sees it (`OpenedSession`): the close, the drop, the
 * keep, the abandoned connect, the idle check, the recording, each routed to the session's
 * RemoteSession (its states) and the reconnect window. One per launch or attach.
 */
import type { BrowserApi, SessionConnection, SessionCreated } from '../browser-api/index.js';
import type { CallScope } from '../http/call-options.js';
import { createDebug } from '../http/debug.js';
import { redact } from '../http/redact.js';
import { describeEnd } from './end-reason.js';
import { cleanCause, LaunchError, messageOf } from './errors.js';
import { recorder } from './metering.js';
import type { LaunchRemoteOptions } from './options.js';
import {
  DEFAULT_RECONNECT_WINDOW_MS,
  handleDrop,
  isKept,
  keptAfterClose,
  serviceEnd,
  takeKept,
} from './reconnect-window.js';
import { deferred, downloadRecordings, type RecordingDownload } from './recordings.js';
import { type EndEvent, RemoteSession } from './remote-session.js';
import { type RemoteSessionInfo, sessionInfo } from './session-info.js';
import { settleBoth } from './settle-both.js';
import type { Slot } from './slots.js';

const debug = createDebug('launch');

export interface OpenedSession {
  readonly info: RemoteSessionInfo;
  readonly lease: RemoteSession;
  readonly api: BrowserApi;
  /** The launch's remaining time and signal, for the adapter's connect. */
  readonly scope: CallScope;
  /** The session's CDP URL (a secret: it carries an access token). */
  cdpUrl(): string;
  /** The profile the launch found or created by name, whose `pinned_*` location comes first. */
  readonly profile?: Record<string, unknown>;
  /**
   * Deletes the session once (or keeps it, with `keepSession` or `keep`), then starts the
   * recording download. The first call decides.
   */
  finish(keep?: boolean): Promise<void>;
  /**
   * The adapter's close(): finish(), except for a drop-in's browser (`reuseKey`) whose
   * connection dropped while its session is kept: it stays kept for the next drop-in launch to
   * re-attach (a framework closes a dead browser before it launches another). `after`: what
   * the DELETE waits for.
   */
  close(after?: Promise<unknown>): Promise<void>;
  /**
   * The adapter's patched close() (Puppeteer's disconnect(): `keep`). The session starts ending
   * before `disconnect` runs, so the disconnect is not taken for a drop, and the DELETE leaves
   * alongside it; a failed end wins over a failed disconnect. `disconnectFirst`: the DELETE
   * waits for a disconnect that still needs the browser (Playwright Test's hooks take a failed
   * test's screenshot and trace in the default context first).
   */
  end(
    disconnect: () => Promise<unknown>,
    options?: { keep?: boolean; disconnectFirst?: boolean },
  ): Promise<void>;
  /**
   * A 'disconnected' without close(): kept for `reconnectWindowMs` when the service says the
   * session still runs, else ended; `info.endReason` and a warning say why (reconnect-window.ts).
   */
  dropped(): void;
  /** Notes CDP activity the adapter saw (the idle-timeout inference's input). */
  touch(): void;
  /** Once a drop is decided: whether the session is kept for a re-attach now. */
  keptAfterDrop(): Promise<boolean>;
  /** True while the connection has dropped without close() and the session is not yet ended. */
  wasDropped(): boolean;
  /**
   * Whether the session still runs (one `GET /sessions/{id}`), a pool's check of a warm
   * session: false once it has ended (said as after a drop, and ended on this side) or was
   * closed. Rejects when the service did not answer.
   */
  stillRunning(timeoutMs: number): Promise<boolean>;
  /**
   * The adapter could not connect: deletes the session and builds the error to throw. A
   * re-attach cut again while its session still runs goes back to its reconnect window.
   */
  abandon(error: unknown): Promise<LaunchError>;
  /** Resolves after finish() with the downloaded recordings, when `recording` was asked for. */
  readonly recording: Promise<RecordingDownload> | undefined;
  /** Releases the launch timer (call once connected). */
  connected(): void;
  /**
   * Settles (never rejects) once the first connection lookup (live view, debugger address)
   * answered. It runs alongside the connect; a launch returns after both.
   */
  readonly lookedUp: Promise<void>;
}

export interface LeaseInput {
  api: BrowserApi;
  ownsApi: boolean;
  scope: CallScope;
  created: SessionCreated;
  /** The account slot the create took (none for an adopted session). */
  slot?: Slot;
  connection: SessionConnection | Promise<SessionConnection | undefined> | undefined;
  options: LaunchRemoteOptions;
  what: string;
  /** connectRemote() of a session kept after a drop: a failed connect says so. */
  reattach?: boolean;
  /** connectRemote(): this process did not see the session's create. */
  adopted?: boolean;
  /** A drop-in's session: see `OpenedSession.close`. */
  reuseKey?: string | undefined;
  /** The profile found or created by name (`OpenedSession.profile`). */
  profile?: Record<string, unknown>;
}

export function leaseSession(input: LeaseInput): OpenedSession {
  const { api, ownsApi, scope, created, slot, connection, options, what, reuseKey } = input;
  const { reattach = false, adopted = false, profile } = input;
  const lease = new RemoteSession(api, created.id, slot);
  const info = sessionInfo(api, created.id, connection);
  // The end reason is the session's, set by the transition that says why it went away.
  Object.defineProperty(info, 'endReason', { enumerable: true, get: () => lease.endReason });
  const leasedAt = Date.now();
  let lastActivityMs = leasedAt;
  let dropDecided: Promise<void> | undefined;
  if (reattach) recorder.reattached(created.id);
  const activity = () => ({
    sinceLeaseMs: lastActivityMs - leasedAt,
    launched: !adopted,
    atMs: lastActivityMs,
  });

  const recordingDone =
    options.recording && !options.keepSession ? deferred<RecordingDownload>() : undefined;
  let finishing: Promise<void> | undefined;
  const noRecording = (why: string) => recordingDone?.reject(new LaunchError(`${what}: ${why}`));

  /** `after`: what the release waits for (a disconnect that still needs the browser). */
  const finish = (keep = false, event: EndEvent = 'close', after?: Promise<unknown>) => {
    finishing ??= (async () => {
      if (after) await after.catch(() => {});
      scope.dispose();
      if (options.keepSession || keep) {
        noRecording('no recording download: the session was kept running');
        lease.keep();
        if (ownsApi) await api.close();
        return;
      }
      try {
        await lease.release(event);
      } catch (error) {
        // Still running and still ours: keep the client, and let a later close() try again.
        finishing = undefined;
        throw error;
      }
      if (recordingDone && options.recording) {
        const { dir, timeout = 120_000 } = options.recording;
        downloadRecordings(api, created.id, dir, timeout)
          .then(recordingDone.resolve, recordingDone.reject)
          .finally(() => {
            if (ownsApi) void api.close();
          });
      } else if (ownsApi) {
        await api.close();
      }
    })();
    return finishing;
  };

  return {
    info,
    lease,
    api,
    scope,
    cdpUrl: () => created.cdp_url,
    ...(profile ? { profile } : {}),
    finish,
    close(after) {
      if (reuseKey === undefined || !dropDecided || finishing) return finish(false, 'close', after);
      return dropDecided.then(() => {
        if (finishing === undefined && isKept(created.id)) {
          debug(`session ${created.id}: closed after a drop: kept for the next drop-in launch`);
          keptAfterClose(created.id);
          return;
        }
        return finish(false, 'close', after);
      });
    },
    end(disconnect, { keep = false, disconnectFirst = false } = {}) {
      if (keep || !disconnectFirst) {
        // Started before the disconnect, so the disconnect it causes is no drop.
        const ending = keep ? finish(true) : this.close();
        return settleBoth(disconnect(), ending);
      }
      const disconnected = disconnect();
      // Ending from this same tick, before the disconnect's 'disconnected' can arrive: no drop.
      return settleBoth(disconnected, this.close(disconnected));
    },
    async abandon(error) {
      // First line only: Playwright appends a multi-line call log (kept in the redacted cause).
      const raw = messageOf(error);
      const reason = scope.signal.aborted
        ? scope.abortError(what).message.replace(`${what}: `, '')
        : redact(raw.split('\n')[0] ?? raw);
      const windowMs = options.reconnectWindowMs ?? DEFAULT_RECONNECT_WINDOW_MS;
      let outcome: string;
      let deleted = false;
      if (reattach && !scope.signal.aborted && !options.keepSession && windowMs > 0) {
        // Cut again before the re-attach connected (a flaky network cuts at any moment): the
        // drop's own lookup decides, and a session still running is kept for another window.
        this.dropped();
        await dropDecided;
        outcome =
          finishing === undefined && isKept(created.id)
            ? `it still runs and is kept for ${windowMs / 1000} s: connectRemote('${created.id}') re-attaches`
            : 'it has ended (the line above says why)';
      } else {
        try {
          await lease.release('abandon');
          [deleted, outcome] = [true, 'the session was deleted'];
        } catch (e) {
          outcome = `and ${(e as Error).message}`;
        }
        if (reattach) lease.report(describeEnd(created.id, 'reattach_failed', { error: reason }));
      }
      scope.dispose();
      // A session still running keeps its client, for the exit hooks and a later close().
      if (ownsApi && deleted) await api.close();
      noRecording('no recording: the connect failed');
      return new LaunchError(
        `${what}: could not connect to session ${created.id}: ${reason}; ${outcome}`,
        { cause: cleanCause(error), sessionId: created.id },
      );
    },
    dropped() {
      if (finishing || dropDecided) return;
      lease.drop();
      dropDecided = handleDrop({
        session: lease,
        windowMs: options.keepSession
          ? 0
          : (options.reconnectWindowMs ?? DEFAULT_RECONNECT_WINDOW_MS),
        limits: options,
        activity: activity(),
        reuseKey,
        end: (event) => finish(false, event),
        handOff() {
          if (finishing) return undefined;
          finishing = Promise.resolve();
          scope.dispose();
          const slot = lease.handOff();
          noRecording('the session was re-attached: its recording follows the new browser');
          if (ownsApi) void api.close();
          return slot;
        },
      }).catch((error: unknown) => debug(`session ${created.id}: ${(error as Error).message}`));
    },
    wasDropped: () => dropDecided !== undefined && finishing === undefined,
    async stillRunning(timeoutMs) {
      // A drop already being decided answers first (its own lookup says why).
      if (dropDecided) await dropDecided;
      if (finishing) return false;
      // The pool's own bound on the one probe: past it, the connection decides instead.
      const session = await lease.probe(AbortSignal.timeout(timeoutMs));
      if (session?.status === 'running') return true;
      if (finishing) return false;
      if (dropDecided && !isKept(created.id)) {
        // The connection dropped while we asked: the drop's lookup decides and says why.
        await dropDecided;
        return finishing === undefined;
      }
      // Ended (or 404: past retention) while warm, or while kept after a drop: out of the
      // window (no 'window passed' line), said once, and ended on this side.
      if (dropDecided) takeKept(created.id);
      lease.report(
        session
          ? serviceEnd(created.id, session, options, activity())
          : describeEnd(created.id, 'gone'),
      );
      finish(false, 'service-ended').catch((error: unknown) =>
        debug(`session ${created.id}: ending after it ended: ${(error as Error).message}`),
      );
      return false;
    },
    async keptAfterDrop() {
      if (!dropDecided) return false;
      await dropDecided;
      // Kept by this lease, or by the lease of a re-attach that was itself cut before it
      // connected (abandon()): the session is in its window either way.
      return isKept(created.id);
    },
    touch() {
      lastActivityMs = Date.now();
      recorder.touched(created.id);
    },
    recording: recordingDone?.promise,
    connected: () => scope.dispose(),
    lookedUp: Promise.resolve(connection).then(() => {}),
  };
}
