/**
 * A session's life: limits, launch of its Chromium, idle and maximum-lifetime timers on the
 * emulator clock, the one shared end (stop Chromium, close the debugger address, publish the
 * recording) and removal after retention.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EmulatorClock } from '../clock.js';
import type { ResolvedOptions } from '../options.js';
import type { BrowserRuntime, EndedBrowser } from '../runtime/index.js';
import { conflict, HttpError, limitReached, unavailable } from '../server/http-error.js';
import { sessionExit } from './exit-identity.js';
import type { Account, ProfileRecord, SessionRecord } from './model.js';
import { pinFromConfig } from './profile-pin.js';
import type { Store } from './store.js';
import type { ResolvedRequest } from './targeting.js';

/** Seconds a client is told to wait after a 429 for sessions (a slot frees when any session ends). */
export const SESSION_LIMIT_RETRY_AFTER_SECONDS = 5;

const MINUTE = 60_000;

/** What a session's life needs: no routes, no proxy. */
export interface SessionLifecycleDeps {
  options: Pick<ResolvedOptions, 'sessionStartMs' | 'retentionMs'>;
  clock: EmulatorClock;
  store: Store;
  runtime: BrowserRuntime;
  /** Profile dirs of store_cache profiles go under `<dataDir>/profiles`. */
  dataDir: string;
  log(level: 'info' | 'warn' | 'error', message: string): void;
}

export class SessionLifecycle {
  /** Creates in flight per account: they hold a slot of the concurrency limit. */
  readonly #launching = new Map<string, number>();
  /** Cached profiles whose user-data dir a session (running or launching) holds. */
  readonly #profilesInUse = new Map<string, string>();
  readonly #deletedProfileDirs = new Map<string, string>();
  /** Creates not yet answered: `endAll` waits for them, so none outlives a reset or a close. */
  readonly #inFlight = new Set<Promise<SessionRecord>>();
  /** Cuts short the modelled start time (`sessionStartMs`) of the creates in flight. */
  #holds = new AbortController();

  constructor(private readonly ctx: SessionLifecycleDeps) {}

  create(account: Account, request: ResolvedRequest): Promise<SessionRecord> {
    const creating = this.#create(account, request);
    this.#inFlight.add(creating);
    // Its failure is the caller's to handle; here it only leaves the set.
    void creating.finally(() => this.#inFlight.delete(creating)).catch(() => {});
    return creating;
  }

  async #create(account: Account, request: ResolvedRequest): Promise<SessionRecord> {
    const { store, clock } = this.ctx;
    const running =
      store.runningSessions(account.id).length + (this.#launching.get(account.id) ?? 0);
    const limit = account.limits.concurrentSessions;
    if (running >= limit) {
      throw limitReached(
        'sessions',
        running,
        limit,
        SESSION_LIMIT_RETRY_AFTER_SECONDS,
        `Concurrent session limit reached (${running} of ${limit}): end a session or retry later`,
      );
    }
    this.#launching.set(account.id, (this.#launching.get(account.id) ?? 0) + 1);
    const profile = request.profile;
    const id = randomUUID();
    const now = clock.now();
    const session: SessionRecord = {
      id,
      accountId: account.id,
      status: 'running',
      createdAt: now,
      endedAt: null,
      config: request.config,
      accessToken: randomBytes(24).toString('base64url'),
      liveViewToken: randomBytes(32).toString('base64url'),
      idleMs: minutes(request.idleTimeoutMinutes, account.limits.idleTimeoutMinutes),
      maxMs: minutes(request.maxDurationMinutes, account.limits.maxDurationMinutes),
      lastActivityAt: now,
      timers: [],
    };
    if (profile) session.profileId = profile.id;
    let claimed = false;
    // The modelled start time runs alongside the launch: the create answers when both are done.
    const cut = this.#holds.signal;
    const hold = this.#holdFor(this.ctx.options.sessionStartMs);
    try {
      const userDataDir = profile?.storeCache ? await this.#claimProfileDir(profile) : undefined;
      claimed = userDataDir !== undefined;
      session.browser = await this.ctx.runtime.launch({
        sessionId: id,
        ...(userDataDir ? { userDataDir } : {}),
        record: this.ctx.runtime.recordingsAvailable,
        onActivity: () => this.touch(session),
        onExit: (reason) => {
          this.ctx.log('warn', `session ${id}: ${reason}`);
          void this.end(session, 'browser_exited');
        },
        exitIdentity: sessionExit(session, profile),
      });
      await hold;
      if (cut.aborted) {
        // A reset or close came while this create was starting: it ends what it started, and
        // encodes nothing (the store is cleared, so nobody could list it).
        await session.browser
          .end()
          .then((ended) => ended.discard())
          .catch(() => {});
        throw unavailable(
          'emulator_reset',
          1,
          'The emulator was reset or closed while the session was starting; retry the request',
        );
      }
    } catch (error) {
      if (profile && claimed) this.#profilesInUse.delete(profile.id);
      if (error instanceof HttpError) throw error;
      this.ctx.log('error', `session ${id}: Chromium failed to start: ${String(error)}`);
      throw new HttpError(502, 'The browser failed to start; retry the request');
    } finally {
      this.#launching.set(account.id, (this.#launching.get(account.id) ?? 1) - 1);
    }
    // Timestamps start when the browser is up, so a slow launch does not eat the session's time.
    session.createdAt = clock.now();
    session.lastActivityAt = session.createdAt;
    if (profile) this.#profilesInUse.set(profile.id, id);
    if (profile?.pinIp && !profile.pinned) profile.pinned = pinFromConfig(session.config);
    store.sessions.set(id, session);
    account.peakRunningSessions = Math.max(
      account.peakRunningSessions,
      store.runningSessions(account.id).length,
    );
    session.timers.push(
      clock.at(session.createdAt + session.maxMs, () => void this.end(session, 'max_duration')),
    );
    this.#armIdle(session);
    this.ctx.log('info', `session ${id} started (pid ${session.browser.pid})`);
    return session;
  }

  /** CDP traffic or a page action: the session is not idle. */
  touch(session: SessionRecord): void {
    session.lastActivityAt = this.ctx.clock.now();
  }

  /** Ends a session once, whoever asks first; resolves when Chromium is gone. */
  end(session: SessionRecord, reason: string): Promise<void> {
    if (session.ending) return session.ending;
    const { clock } = this.ctx;
    session.status = 'ended';
    session.endedAt = clock.now();
    session.endReason = reason;
    for (const timer of session.timers) timer.cancel();
    session.timers = [];
    const ended = this.#finish(session);
    session.ending = ended.then(() => {});
    let settled: Promise<void> | undefined;
    const settle = (publish: boolean) =>
      (settled ??= ended.then((e) => (publish ? this.#publish(session, e) : e?.discard())));
    session.recording = { publish: () => settle(true), discard: () => settle(false) };
    return session.ending;
  }

  async endAll(reason: string): Promise<void> {
    this.#holds.abort();
    this.#holds = new AbortController();
    await Promise.allSettled(this.#inFlight);
    await Promise.all(this.ctx.store.runningSessions().map((s) => this.end(s, reason)));
    const sessions = [...this.ctx.store.sessions.values()];
    await Promise.all(sessions.map((s) => s.ending));
    // Nothing is encoded for a reset (the store is cleared after) or a close, and an encode
    // still running must not outlive them.
    await Promise.all(sessions.map((s) => s.recording?.discard()));
  }

  /** The profile was deleted: its cache dir goes once no session holds it. */
  profileDeleted(profile: ProfileRecord): void {
    if (!profile.userDataDir) return;
    if (this.#profilesInUse.has(profile.id)) {
      this.#deletedProfileDirs.set(profile.id, profile.userDataDir);
    } else {
      void rm(profile.userDataDir, { recursive: true, force: true });
    }
  }

  /** Resolves after `ms`, or at once when `endAll` runs (a reset or close does not wait it out). */
  #holdFor(ms: number): Promise<void> {
    const signal = this.#holds.signal;
    if (ms <= 0 || signal.aborted) return Promise.resolve();
    return sleep(ms, undefined, { signal }).catch(() => {});
  }

  async #claimProfileDir(profile: ProfileRecord): Promise<string> {
    const holder = this.#profilesInUse.get(profile.id);
    if (holder) {
      // Chromium locks its user-data dir: two browsers cannot share one.
      throw conflict(
        `Profile "${profile.name}" is in use by running session ${holder}; a profile with store_cache serves one session at a time`,
      );
    }
    this.#profilesInUse.set(profile.id, 'launching');
    profile.userDataDir ??= join(this.ctx.dataDir, 'profiles', profile.id);
    await mkdir(profile.userDataDir, { recursive: true });
    return profile.userDataDir;
  }

  #armIdle(session: SessionRecord): void {
    const at = session.lastActivityAt + session.idleMs;
    const timer = this.ctx.clock.at(at, () => {
      session.timers = session.timers.filter((t) => t !== timer);
      if (session.status !== 'running') return;
      if (this.ctx.clock.now() - session.lastActivityAt >= session.idleMs) {
        void this.end(session, 'idle_timeout');
      } else {
        this.#armIdle(session);
      }
    });
    session.timers.push(timer);
  }

  /**
   * Chromium gone, debugger address closed, profile released: the session has ended. Undefined
   * when its browser never started or its stop failed: nothing was recorded.
   */
  async #finish(session: SessionRecord): Promise<EndedBrowser | undefined> {
    const { clock, options } = this.ctx;
    const endpoint = session.debuggerEndpoint;
    if (endpoint) {
      await endpoint.then((e) => e.close()).catch(() => {});
    }
    let ended: EndedBrowser | undefined;
    try {
      if (session.browser) ended = await session.browser.end();
    } catch (error) {
      this.ctx.log('error', `session ${session.id}: stop failed: ${String(error)}`);
    }
    session.browser = undefined;
    if (session.profileId && this.#profilesInUse.get(session.profileId) === session.id) {
      this.#profilesInUse.delete(session.profileId);
      const orphanDir = this.#deletedProfileDirs.get(session.profileId);
      if (orphanDir) {
        this.#deletedProfileDirs.delete(session.profileId);
        await rm(orphanDir, { recursive: true, force: true });
      }
    }
    this.ctx.log('info', `session ${session.id} ended (${session.endReason})`);
    const endedAt = session.endedAt ?? clock.now();
    // Retention: the session and its recordings disappear, files included.
    clock.at(endedAt + options.retentionMs, () => void this.#forget(session.id));
    return ended;
  }

  /** Encodes the recording a due listing asked for, and lists it from then on. */
  async #publish(session: SessionRecord, ended: EndedBrowser | undefined): Promise<void> {
    const file = await ended?.recording();
    if (!file) return;
    const { clock, store } = this.ctx;
    if (store.sessions.get(session.id) !== session) {
      // Forgotten (retention) while it was encoding: nothing will ever list or remove it.
      await rm(file.path, { force: true }).catch(() => {});
      return;
    }
    const recordingId = randomUUID();
    store.recordings.set(recordingId, {
      id: recordingId,
      sessionId: session.id,
      accountId: session.accountId,
      isPrimary: true,
      file,
      publishedAt: clock.now(),
    });
  }

  async #forget(sessionId: string): Promise<void> {
    const { store } = this.ctx;
    const recording = store.sessions.get(sessionId)?.recording;
    store.sessions.delete(sessionId);
    await recording?.discard();
    for (const recording of [...store.recordings.values()]) {
      if (recording.sessionId !== sessionId) continue;
      store.recordings.delete(recording.id);
      await rm(recording.file.path, { force: true }).catch(() => {});
    }
  }
}

/** 0 (or nothing) means the account limit; a request may ask for less, never more. */
function minutes(requested: number, accountLimit: number): number {
  const wanted = requested > 0 ? Math.min(requested, accountLimit) : accountLimit;
  return wanted * MINUTE;
}
