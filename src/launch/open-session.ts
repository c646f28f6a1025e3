/**
 * The library-agnostic half of launchRemote(): resolve the client, find-or-create the profile,
 * preflight, create (queue on 429, reconcile lost creates), and hand the adapter a lease.
 * The Playwright and Puppeteer adapters only connect and wire close() to `finish()`.
 */
import { BrowserApi, type SessionConnection, type SessionCreated } from '../browser-api/index.js';
import { type CallScope, callScope, raceAbort } from '../http/call-options.js';
import { type BrowserConfigNeeds, resolveBrowserConfig } from '../http/config.js';
import { createDebug } from '../http/debug.js';
import { redact } from '../http/redact.js';
import { sharedDispatcher } from '../http/shared-dispatcher.js';
import { createSession } from './create-session.js';
import { describeEnd } from './end-reason.js';
import { LaunchError } from './errors.js';
import { recorder } from './metering.js';
import { DEFAULT_LAUNCH_TIMEOUT, type LaunchRemoteOptions } from './options.js';
import { preflight } from './preflight.js';
import { findOrCreateProfile } from './profiles.js';
import {
  DEFAULT_RECONNECT_WINDOW_MS,
  handleDrop,
  isKept,
  keptAfterClose,
  REATTACH_ATTEMPTS,
  reuseKeyOf,
  serviceEnd,
  type TakenKept,
  takeKept,
  takeKeptFor,
} from './reconnect-window.js';
import { deferred, downloadRecordings, type RecordingDownload } from './recordings.js';
import { type EndEvent, RemoteSession } from './remote-session.js';
import { lookUpConnection, type RemoteSessionInfo, sessionInfo } from './session-info.js';
import { settleBoth } from './settle-both.js';
import type { Slot } from './slots.js';
import { ownClient, tracker } from './tracker.js';

export type { RemoteSessionInfo } from './session-info.js';

import { toWireSession } from './to-wire.js';

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
   * The adapter's close/disconnect path: deletes the session once (or keeps it, with
   * `keepSession` or `keep`), then starts the recording download. The first call decides.
   */
  finish(keep?: boolean): Promise<void>;
  /**
   * The adapter's close(): finish(), except for a drop-in's browser (`reuseKey`) whose
   * connection dropped while its session is kept: then the session stays kept (the window, the
   * exit hooks and the watchdog still end it) for the next drop-in launch to re-attach, as a
   * framework closes a dead browser before it launches another.
   */
  close(): Promise<void>;
  /**
   * The adapter's patched close() (or Puppeteer's disconnect(), `keep`): the session starts
   * ending (close(), or finish(true) with `keep`) before `disconnect` runs, so the disconnect
   * this causes is not taken for a drop; the DELETE leaves alongside the disconnect, not after
   * it (ending the session drops the socket anyway). Both are waited for; a failed end (the
   * session may still be running) wins over a failed disconnect.
   */
  end(disconnect: () => Promise<unknown>, keep?: boolean): Promise<void>;
  /**
   * The adapter's 'disconnected' without close(): a drop, not a close (reconnect-window.ts). The
   * session is kept for `reconnectWindowMs` when the service says it still runs, else ended;
   * either way `info.endReason` and a warning say why.
   */
  dropped(): void;
  /** Notes CDP activity the adapter saw (the idle-timeout inference's input). */
  touch(): void;
  /**
   * Once the drop (if any) is decided: whether the session is kept for a re-attach now. False
   * for a browser that did not drop, was closed, or whose session ended.
   */
  keptAfterDrop(): Promise<boolean>;
  /** True while the connection has dropped without close() and the session is not yet ended. */
  wasDropped(): boolean;
  /**
   * Asks the service (`GET /sessions/{id}`) whether the session still runs: the pools' check of
   * a warm session that sat idle. False once it has ended (the reason said as after a drop,
   * and this side ended: a kept session leaves its window) or the browser was closed. Rejects
   * when the service did not answer: the caller decides.
   */
  stillRunning(timeoutMs: number): Promise<boolean>;
  /**
   * The adapter could not connect: delete the session and build the error to throw. A re-attach
   * whose own connection dropped while its session still runs is a drop, not a close: the
   * session goes back to its reconnect window (the error says so), for the caller to try again.
   */
  abandon(error: unknown): Promise<LaunchError>;
  /** Resolves after finish() with the downloaded recordings, when `recording` was asked for. */
  readonly recording: Promise<RecordingDownload> | undefined;
  /** Releases the launch timer (call once connected). */
  connected(): void;
  /**
   * Settles when the first connection lookup (live view, debugger address) has answered or
   * failed; it never rejects. It runs alongside the connect, so a launch pays for whichever is
   * slower, not for both; a launch returns only after it, so `sessionOf()` has the live view.
   */
  readonly lookedUp: Promise<void>;
}

export async function openSession(
  options: LaunchRemoteOptions,
  what: string,
  /** A drop-in's `reuseKeyOf(options)`: after a drop, its close() keeps the session for the next launch. */
  reuseKey?: string,
): Promise<OpenedSession> {
  if (options.profile !== undefined && options.profileId !== undefined) {
    throw new LaunchError(`${what}: pass either \`profile\` (a name) or \`profileId\`, not both`);
  }
  const { api, ownsApi } = await clientFor(options, { proxyPassword: true });
  const scope = launchScope(options);
  const call = { signal: scope.signal, timeout: remaining(scope) };

  let created: SessionCreated;
  let slot: Slot;
  let profile: Record<string, unknown> | undefined;
  try {
    const wire = toWireSession(options);
    if (options.profile !== undefined) {
      const spec =
        typeof options.profile === 'string' ? { name: options.profile } : options.profile;
      const found = await findOrCreateProfile(api, spec.name, {
        ...call,
        ...(spec.storeCache !== undefined ? { storeCache: spec.storeCache } : {}),
        ...(spec.pinIp !== undefined ? { pinIp: spec.pinIp } : {}),
      });
      wire.profile_id = found.id;
      profile = found;
    }
    const mode = options.preflight ?? true;
    if (mode !== false)
      await preflight(api, wire, mode, what, { signal: scope.signal, timeout: remaining(scope) });
    const body = {
      ...wire,
      ...(options.proxyPassword !== undefined ? { proxy_password: options.proxyPassword } : {}),
    };
    ({ created, slot } = await createSession(api, body as Parameters<typeof createSession>[1], {
      scope,
      waitForSlot: options.waitForSlot ?? true,
      what,
    }));
  } catch (error) {
    scope.dispose();
    // A create left running in the background still needs the client to delete its session.
    if (ownsApi) void tracker.settledCleanups(api).then(() => api.close());
    if (scope.signal.aborted && !(error instanceof LaunchError)) throw scope.abortError(what);
    throw error;
  }

  // Not awaited here: the adapter's connect needs only the cdp_url, so the two run together.
  const connection = lookUpConnection(api, created.id);
  // The lease holds the slot: it frees when the session is no longer ours (deleted, or kept).
  return leaseSession({
    api,
    ownsApi,
    scope,
    created,
    slot,
    connection,
    options,
    what,
    reuseKey,
    ...(profile ? { profile } : {}),
  });
}

/**
 * Attaches to a session that already exists (connectRemote, reconnect flows). close() deletes
 * it like a launched one unless `keepSession` is set.
 */
export async function adoptSession(
  sessionId: string,
  options: LaunchRemoteOptions,
  what: string,
): Promise<OpenedSession> {
  if (typeof sessionId !== 'string' || sessionId.trim() === '')
    throw new LaunchError(`${what}: sessionId must be a non-empty string`);
  const { api, ownsApi } = await clientFor(options);
  // A session kept after a drop: out of its window now, this launch's from its lease on.
  return adopt(sessionId, takeKept(sessionId), api, ownsApi, options, what);
}

/**
 * The drop-ins' launch: first re-attaches a session that a drop-in browser of this process
 * (same account and session options: `reuseKeyOf`) dropped and that is kept in the reconnect
 * window; creates one (openSession) only when none is kept or the re-attach fails, which is
 * said (`REMOTE_BROWSER_REATTACH_FAILED`). `connect` is the adapter's; a browser it returns on
 * a created session keeps it after a drop for the next such launch (`OpenedSession.close`).
 */
export async function launchReusing<B>(
  options: LaunchRemoteOptions,
  what: string,
  connect: (opened: OpenedSession) => Promise<B>,
): Promise<B> {
  const reuseKey = reuseKeyOf(options);
  // A re-attach cut before it connected leaves the session kept (abandon()): try it again, a
  // few times, before a create bills a new one.
  for (let attempt = 1; reuseKey !== undefined && attempt <= REATTACH_ATTEMPTS; attempt++) {
    const again = await reattachKept(reuseKey, options, what).catch((error: unknown) => {
      debug(`re-attaching a kept session failed, creating one: ${(error as Error).message}`);
      return undefined;
    });
    if (!again) break;
    try {
      return await connect(again);
    } catch (error) {
      // The connect's abandon() said so: kept again (the next attempt takes it) or ended.
      debug(`re-attaching a kept session failed: ${(error as Error).message}`);
    }
  }
  return connect(await openSession(options, what, reuseKey));
}

/**
 * A drop-in launch's re-attach: takes a session a drop-in browser of this process dropped, kept
 * under `reuseKey` (reconnect-window.ts), and attaches to it like connectRemote(). Undefined
 * when none is kept. Rejects when the re-attach failed: the session is then said and ended.
 */
async function reattachKept(
  reuseKey: string,
  options: LaunchRemoteOptions,
  what: string,
): Promise<OpenedSession | undefined> {
  const previous = await takeKeptFor(reuseKey);
  if (!previous) return undefined;
  let client: { api: BrowserApi; ownsApi: boolean };
  try {
    client = await clientFor(options);
  } catch (error) {
    await failReattach(previous, error);
    throw error;
  }
  const opened = await adopt(
    previous.id,
    previous,
    client.api,
    client.ownsApi,
    options,
    what,
    reuseKey,
  );
  debug(
    `${what}: re-attached session ${previous.id} after its connection dropped, instead of creating a new one (${++tracker.reattachedByLaunch} in this process)`,
  );
  return opened;
}

async function adopt(
  sessionId: string,
  previous: TakenKept | undefined,
  api: BrowserApi,
  ownsApi: boolean,
  options: LaunchRemoteOptions,
  what: string,
  reuseKey?: string,
): Promise<OpenedSession> {
  const scope = launchScope(options);
  try {
    const connection = await api.sessions.connection(sessionId, {
      signal: scope.signal,
      timeout: remaining(scope),
    });
    if (connection.status !== 'running' || !connection.cdp_url) {
      throw new LaunchError(`${what}: session ${sessionId} is ${connection.status}, not running`, {
        sessionId,
      });
    }
    const created = {
      id: sessionId,
      cdp_url: connection.cdp_url,
      status: 'running',
    } as SessionCreated;
    // The hand-off and the new lease with nothing awaited between: the session is never
    // uncovered, and the new lease holds the slot the launch's create took.
    const slot = previous?.handOff();
    return leaseSession({
      api,
      ownsApi,
      scope,
      created,
      connection,
      options,
      what,
      reattach: previous !== undefined,
      adopted: true,
      ...(slot ? { slot } : {}),
      ...(reuseKey !== undefined ? { reuseKey } : {}),
    });
  } catch (error) {
    scope.dispose();
    if (ownsApi) await api.close();
    if (previous) await failReattach(previous, error);
    throw error;
  }
}

/** A re-attach that failed before its lease: said the window's way, and the session ended. */
async function failReattach(previous: TakenKept, error: unknown): Promise<void> {
  previous.report(describeEnd(previous.id, 'reattach_failed', { error: redact(messageOf(error)) }));
  await previous.end().catch(() => {});
}

interface LeaseInput {
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

function leaseSession({
  api,
  ownsApi,
  scope,
  created,
  slot,
  connection,
  options,
  what,
  reattach = false,
  adopted = false,
  reuseKey,
  profile,
}: LeaseInput): OpenedSession {
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

  const finish = (keep = false, event: EndEvent = 'close') => {
    finishing ??= (async () => {
      scope.dispose();
      if (options.keepSession || keep) {
        recordingDone?.reject(
          new LaunchError(`${what}: no recording download: the session was kept running`),
        );
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
        downloadRecordings(
          api,
          created.id,
          options.recording.dir,
          options.recording.timeout ?? 120_000,
        )
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
    close() {
      if (reuseKey === undefined || !dropDecided || finishing) return finish();
      return dropDecided.then(() => {
        if (finishing === undefined && isKept(created.id)) {
          debug(`session ${created.id}: closed after a drop: kept for the next drop-in launch`);
          keptAfterClose(created.id);
          return;
        }
        return finish();
      });
    },
    end(disconnect, keep = false) {
      const ending = keep ? finish(true) : this.close();
      return settleBoth(disconnect(), ending);
    },
    async abandon(error) {
      // First line only: Playwright appends a multi-line call log (kept in the redacted cause).
      const raw = messageOf(error);
      const reason = scope.signal.aborted
        ? scope.abortError(what).message.replace(`${what}: `, '')
        : redact(raw.split('\n')[0] ?? raw);
      const windowMs = options.reconnectWindowMs ?? DEFAULT_RECONNECT_WINDOW_MS;
      if (reattach && !scope.signal.aborted && !options.keepSession && windowMs > 0) {
        // Cut again before the re-attach connected (a flaky network cuts at any moment): the
        // drop's own lookup decides, and a session still running is kept for another window.
        this.dropped();
        await dropDecided;
        scope.dispose();
        recordingDone?.reject(new LaunchError(`${what}: no recording: the connect failed`));
        const kept = finishing === undefined && isKept(created.id);
        return new LaunchError(
          `${what}: could not connect to session ${created.id}: ${reason}; ${
            kept
              ? `it still runs and is kept for ${windowMs / 1000} s: connectRemote('${created.id}') re-attaches`
              : 'it has ended (the line above says why)'
          }`,
          { cause: cleanCause(error), sessionId: created.id },
        );
      }
      let deleted = true;
      const cleanup = await lease.release('abandon').then(
        () => 'the session was deleted',
        (e: unknown) => {
          deleted = false;
          return `and ${(e as Error).message}`;
        },
      );
      scope.dispose();
      // A session still running keeps its client, for the exit hooks and a later close().
      if (ownsApi && deleted) await api.close();
      recordingDone?.reject(new LaunchError(`${what}: no recording: the connect failed`));
      if (reattach) lease.report(describeEnd(created.id, 'reattach_failed', { error: reason }));
      return new LaunchError(
        `${what}: could not connect to session ${created.id}: ${reason}; ${cleanup}`,
        {
          cause: cleanCause(error),
          sessionId: created.id,
        },
      );
    },
    dropped() {
      if (finishing || dropDecided) return;
      const windowMs = options.keepSession
        ? 0
        : (options.reconnectWindowMs ?? DEFAULT_RECONNECT_WINDOW_MS);
      lease.drop();
      dropDecided = handleDrop({
        session: lease,
        windowMs,
        limits: options,
        activity: activity(),
        reuseKey,
        end: (event) => finish(false, event),
        handOff() {
          if (finishing) return undefined;
          finishing = Promise.resolve();
          scope.dispose();
          const slot = lease.handOff();
          recordingDone?.reject(
            new LaunchError(
              `${what}: the session was re-attached: its recording follows the new browser`,
            ),
          );
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

/** Anything can be thrown: a `message` that is not a string must not break the cleanup. */
function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}

/**
 * Connect failures carry the cdp_url (Playwright's call log, Puppeteer's `ws` ErrorEvent that
 * prints its target when inspected): replace them with a plain Error whose text is redacted.
 */
function cleanCause(error: unknown): Error {
  const clean = new Error(redact(messageOf(error)));
  clean.name = error instanceof Error ? error.name : 'ConnectError';
  clean.stack = redact(
    error instanceof Error && error.stack ? error.stack : `${clean.name}: ${clean.message}`,
  );
  return clean;
}

/**
 * The caller's client, or one of our own (closed when the session is done with it) on the
 * process-wide connection pool, so consecutive launches reuse one keep-alive connection.
 */
async function clientFor(
  options: LaunchRemoteOptions,
  needs: BrowserConfigNeeds = {},
): Promise<{ api: BrowserApi; ownsApi: boolean }> {
  if (options.api) return { api: options.api, ownsApi: false };
  const { token, baseUrl, proxyPassword } = options;
  // Everything a launch needs is named in one error, before any request.
  resolveBrowserConfig({ token, baseUrl, proxyPassword }, process.env, needs);
  const dispatcher = await sharedDispatcher();
  const api = ownClient(new BrowserApi({ token, baseUrl, proxyPassword, dispatcher }));
  return { api, ownsApi: true };
}

/** The whole launch's deadline and signal (a wait for a free slot included). */
function launchScope(options: LaunchRemoteOptions): CallScope {
  const timeout = options.timeout ?? DEFAULT_LAUNCH_TIMEOUT;
  return callScope({ signal: options.signal, timeout }, timeout);
}

function remaining(scope: CallScope): number {
  const left = scope.deadline - Date.now();
  return Number.isFinite(left) ? Math.max(1, left) : 0;
}

/**
 * Runs `connect` within the launch's deadline and signal (Playwright's and Puppeteer's connect
 * take no signal). A connect the network dropped (not one the endpoint refused with a status)
 * while the service says the session runs is tried again on the same session, up to
 * CONNECT_ATTEMPTS in all: a drop is not a close, and a new session would be billed for it.
 */
export async function connectWithin<T>(
  opened: OpenedSession,
  what: string,
  connect: (timeoutMs: number) => Promise<T>,
  disposeLate: (value: T) => Promise<void>,
): Promise<T> {
  const { scope } = opened;
  for (let attempt = 1; ; attempt++) {
    if (scope.signal.aborted) throw scope.abortError(what);
    const pending = connect(remaining(scope));
    try {
      const connected = await raceAbort(pending, scope, what);
      // The connection lookup ran alongside: the browser is handed out with its live view known.
      await opened.lookedUp;
      return connected;
    } catch (error) {
      // A connect that completes after we gave up must not leave a client attached.
      pending.then(disposeLate, () => {}).catch(() => {});
      if (attempt >= CONNECT_ATTEMPTS || !(await droppedWhileRunning(opened, error))) throw error;
      debug(
        `${what}: the connection to session ${opened.info.id} dropped while connecting; connecting again (${attempt + 1} of ${CONNECT_ATTEMPTS})`,
      );
    }
  }
}

/** Connects tried on one session when the network drops them (connectWithin). */
const CONNECT_ATTEMPTS = 3;

/**
 * A refused websocket upgrade names its status: Playwright's "WebSocket error: <url> 502 Bad
 * Gateway", Puppeteer's (ws's) "Unexpected server response: 502". Anything else (a reset, "socket
 * hang up", a connection closed after the upgrade) is the network's.
 */
const REFUSED_UPGRADE = /Unexpected server response: \d{3}|WebSocket error: \S+ \d{3} /;

/** Whether a failed connect was dropped by the network while the session still runs. */
async function droppedWhileRunning(opened: OpenedSession, error: unknown): Promise<boolean> {
  if (opened.scope.signal.aborted || REFUSED_UPGRADE.test(messageOf(error))) return false;
  try {
    // The one probe, within what is left of the launch.
    return (await opened.lease.probe(opened.scope.signal))?.status === 'running';
  } catch {
    return false;
  }
}
