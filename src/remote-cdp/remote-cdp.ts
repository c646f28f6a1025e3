/**
 * Remote CDP: what the library does over CDP for both Playwright and Puppeteer, on ONE
 * browser-level session per connected browser: the features' own connection to the session's
 * `cdp_url`, opened alongside the library's connect (remote-features.ts), or a library's own
 * session (`remoteCdpFor`'s `open`). The tunnel, the WebSocket bridge, downloads, uploads and
 * geo share it:
 * - Every `send` and `on` is typed from `devtools-protocol` and runs behind the dispatch guard
 *   (guardListener): nothing a page, the service or a closed connection does reaches the user.
 * - `targets` follows every target (`Target.setDiscoverTargets`).
 * - `intercept()` owns the `Fetch` domain (fetch-interception.ts): the features' patterns in
 *   the fixed INTERCEPT_ORDER, with the tunnel → downloads hand-off (`offerServed`).
 * - `attach(targetId)` is the way into a target (target-session.ts, target-routing.ts),
 *   non-flat: Playwright's `newBrowserCDPSession()` drops flat child sessions' messages. On a
 *   connection of our own (`speaksFlat`), flat sessions Chromium auto-attaches are adopted
 *   too (`adoptFlat`): only those hold a new page or worker until we resume it (page-hold.ts,
 *   geo-overrides.ts).
 * - Setup in one round trip: `setup(...calls)` and every `Fetch.enable` go out at once; the
 *   adapter awaits `ready()` once (which also waits for the bridge's scripts on the tabs there,
 *   `waitFor()`: the user's next command comes on another socket).
 * - `reopen(channel)`: the same session on a new connection after the old one dropped.
 * The browser target's `Fetch` sees a request after every page-level interception (Playwright's
 * `route()`, Puppeteer's request interception).
 */
import type { Protocol } from 'devtools-protocol';
import { createDebug } from '../http/debug.js';
import {
  type CdpCall,
  type CdpChannel,
  type CdpCommand,
  type CdpEvent,
  type CdpListener,
  type CdpParams,
  type CdpResult,
  type CdpSession,
  guardListener,
  sendAll,
} from './cdp-channel.js';
import {
  FetchInterception,
  type FetchInterceptor,
  type InterceptorRole,
  type PausedRequest,
  type ServedResponse,
} from './fetch-interception.js';
import { TargetRouting } from './target-routing.js';
import { TargetSession, TargetSessionClosedError } from './target-session.js';

const debug = createDebug('remote-cdp');

export type {
  FetchInterceptor,
  FetchPattern,
  HeaderEntry,
  InterceptorRole,
  PausedRequest,
  ServedResponse,
} from './fetch-interception.js';

/** One target of the browser, as `Target.targetInfoChanged` last described it. */
export type RemoteTarget = Protocol.Target.TargetInfo;

/** A session on one target (RemoteCdp.attach()). */
export interface AttachedTarget {
  /** Usable at once: listen on it before anything arrives, send without waiting. */
  session: TargetSession;
  /** Resolves once the browser answered the attach; rejects (the session closed) when it refused. */
  attached: Promise<void>;
  /** Settles when the setup commands are answered; rejects with the first that failed. */
  setupDone: Promise<void>;
}

export class RemoteCdp implements CdpSession {
  #channel: CdpChannel;
  /** Every listener on the channel (this one's and the features'), for a reopen() to move. */
  readonly #listeners = new Set<{ event: string; listener: (params: never) => void }>();
  /** The setup() calls by method, the last of each: the state a reopened connection needs. */
  readonly #replay = new Map<string, CdpCall>();
  readonly #targets = new Map<string, RemoteTarget>();
  readonly #fetch: FetchInterception;
  readonly #routing: TargetRouting;
  /** Setup calls sent and not answered yet (ready() waits for them). */
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #unsubscribe: (() => void)[] = [];
  /** Stops routing the channel's flat-session events (moved by a reopen). */
  #stopFlatEvents: (() => void) | undefined;
  #setupFailure: Error | undefined;
  #closed: Promise<void> | undefined;

  private constructor(channel: CdpChannel) {
    this.#channel = channel;
    this.#fetch = new FetchInterception((method, ...params) => this.send(method, ...params));
    this.#routing = new TargetRouting(this);
  }

  /**
   * Starts following the browser's targets on `channel`; see remoteCdpFor() for sharing. Sends
   * `Target.setDiscoverTargets` as part of the setup batch: `ready()` waits for it.
   */
  static open(channel: CdpChannel): RemoteCdp {
    const cdp = new RemoteCdp(channel);
    const set = (info: RemoteTarget) => cdp.#targets.set(info.targetId, info);
    cdp.#unsubscribe.push(
      cdp.on('Target.targetCreated', (e) => set(e.targetInfo)),
      cdp.on('Target.targetInfoChanged', (e) => set(e.targetInfo)),
      cdp.on('Target.targetDestroyed', (e) => cdp.#targets.delete(e.targetId)),
      cdp.on('Fetch.requestPaused', (e) => cdp.#fetch.dispatch(e)),
      cdp.on('Target.receivedMessageFromTarget', (e) =>
        cdp.#routing.receive(e.sessionId, e.targetId, e.message),
      ),
      cdp.on('Target.detachedFromTarget', (e) => cdp.#routing.detached(e.sessionId, e.targetId)),
    );
    cdp.#routeFlatEvents();
    void cdp.setup({ method: 'Target.setDiscoverTargets', params: { discover: true } });
    return cdp;
  }

  #routeFlatEvents(): void {
    this.#stopFlatEvents = this.#channel.onSessionEvent?.((method, params, sessionId) =>
      this.#routing.flatEvent(sessionId, method, params),
    );
  }

  /** Every target of the browser by id (a page's and an OOPIF's id is its frame id). */
  get targets(): ReadonlyMap<string, RemoteTarget> {
    return this.#targets;
  }

  /** Whether `frameId` is the main frame of a page (a tab or popup), not a frame inside one. */
  isPageFrame(frameId: string): boolean {
    return this.#targets.get(frameId)?.type === 'page';
  }

  /** Sends a command on the browser-level session. */
  async send<M extends CdpCommand>(method: M, ...params: CdpParams<M>): Promise<CdpResult<M>> {
    return (await this.#channel.send(method, params[0])) as CdpResult<M>;
  }

  /** Whether the connection has flat target sessions (our own does; a library's session not). */
  get speaksFlat(): boolean {
    return this.#channel.sendToSession !== undefined;
  }

  /** Whether `sessionId` is one of our own attaches to `targetId` (TargetRouting.owns). */
  ownsAttach(sessionId: string, targetId: string): Promise<boolean> {
    return this.#routing.owns(sessionId, targetId);
  }

  /** The flat session `sessionId` the browser auto-attached to `targetId`, as a TargetSession. */
  adoptFlat(sessionId: string, targetId: string): TargetSession {
    return this.#routing.adoptFlat(sessionId, targetId, async (method, params) => {
      // The channel of now: a reopen closes this session, and its calls reject, with the old one.
      const channel = this.#channel;
      if (!channel.sendToSession) throw new Error('this CDP connection has no flat sessions');
      return channel.sendToSession(sessionId, method, params);
    });
  }

  /** Listens to a browser-level event (behind the dispatch guard); returns how to stop. */
  on<E extends CdpEvent>(event: E, listener: CdpListener<E>): () => void {
    const entry = { event, listener: guardListener(event, listener) as (params: never) => void };
    this.#listeners.add(entry);
    this.#channel.on(event, entry.listener);
    return () => {
      this.#listeners.delete(entry);
      this.#channel.off(event, entry.listener);
    };
  }

  /**
   * Session-wide setup: sends `calls` at once, joined to the batch `ready()` waits for. The
   * returned promise rejects when one fails; a caller that only needs the batch ignores it.
   */
  setup(...calls: CdpCall[]): Promise<void> {
    for (const call of calls) this.#replay.set(call.method, call);
    return this.#track(sendAll(this, calls));
  }

  /**
   * Ends a setup(): `undo` (the call that turns its state off) is sent now, and a reopened
   * connection no longer replays the setup of that method. Not part of the batch ready() waits for.
   */
  revert(undo: CdpCall): Promise<void> {
    this.#replay.delete(undo.method);
    return sendAll(this, [undo]);
  }

  /**
   * Moves onto `channel`, a new connection to the same browser after the old one dropped: the
   * listeners move; the old target sessions close (features forget them); the last setup() of
   * each method and the Fetch patterns go out again, `Target.setDiscoverTargets`' events of
   * every target there letting each feature attach again. Settles as ready() does.
   */
  async reopen(channel: CdpChannel): Promise<void> {
    if (this.#closed) throw new TargetSessionClosedError('the browser session is closed');
    const old = this.#channel;
    for (const { event, listener } of this.#listeners) old.off(event, listener);
    this.#stopFlatEvents?.();
    void old.detach().catch(() => {});
    this.#routing.closeAll(new TargetSessionClosedError('the CDP connection dropped'));
    this.#targets.clear();
    this.#setupFailure = undefined;
    this.#channel = channel;
    for (const { event, listener } of this.#listeners) channel.on(event, listener);
    this.#routeFlatEvents();
    await Promise.all([this.setup(...this.#replay.values()), this.#track(this.#fetch.resend())]);
  }

  /** Joins `pending` (a feature's setup on a target) to what ready() waits for, not its failure. */
  waitFor(pending: Promise<unknown>): void {
    const settled = pending.then(
      () => {},
      () => {},
    );
    this.#inFlight.add(settled);
    void settled.then(() => this.#inFlight.delete(settled));
  }

  /** Resolves when every setup call sent so far is answered; rejects with the first that failed. */
  async ready(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    if (this.#setupFailure) throw this.#setupFailure;
  }

  /** Adds a feature's interception (fetch-interception.ts) to the batch; returns its removal. */
  intercept(interceptor: FetchInterceptor): () => Promise<void> {
    const { applied, remove } = this.#fetch.add(interceptor);
    void this.#track(applied);
    return remove;
  }

  /** Offers a response `from` served on the client to the features after it (see FetchInterceptor.onServed). */
  offerServed(
    from: InterceptorRole,
    event: PausedRequest,
    response: ServedResponse,
  ): Promise<boolean> {
    return this.#fetch.offerServed(from, event, response);
  }

  /**
   * Attaches a non-flat session to `targetId` and sends `first` on it at once, in the same
   * write as the attach when no other session of ours is on it (before a user's next goto).
   */
  attach(targetId: string, first: readonly CdpCall[] = []): AttachedTarget {
    if (this.#closed) {
      const reason = new TargetSessionClosedError('the browser session is closed');
      const session = new TargetSession(targetId, {
        early: false,
        sendToTarget: () => Promise.reject(reason),
        onDetach: async () => {},
      });
      session.close(reason);
      const attached = Promise.reject(reason);
      attached.catch(() => {});
      return { session, attached, setupDone: attached };
    }
    const { session, attached } = this.#routing.attach(targetId);
    const setupDone = sendAll(session, first);
    setupDone.catch((error: unknown) =>
      debug(`setup of target ${targetId} failed: ${(error as Error).message}`),
    );
    return { session, attached, setupDone };
  }

  /** Ends the session (idempotent); the browser and its connection stay. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      for (const stop of this.#unsubscribe.splice(0)) stop();
      this.#stopFlatEvents?.();
      this.#fetch.clear();
      this.#routing.closeAll(new TargetSessionClosedError('the browser session closed'));
      await this.#channel.detach().catch((error: unknown) => {
        debug(`detaching the browser session failed: ${(error as Error).message}`);
      });
    })();
    return this.#closed;
  }

  /** Joins `sent` to the batch; a failure is kept for ready() and never left unhandled. */
  #track<T>(sent: Promise<T>): Promise<T> {
    this.#inFlight.add(sent);
    sent.then(
      () => this.#inFlight.delete(sent),
      (error: unknown) => {
        this.#inFlight.delete(sent);
        this.#setupFailure ??= error instanceof Error ? error : new Error(String(error));
      },
    );
    return sent;
  }
}
