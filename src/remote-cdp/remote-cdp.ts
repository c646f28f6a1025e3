/**
 * Remote CDP: what the library does over CDP for both Playwright and Puppeteer, on ONE
 * browser-level session per connected browser: since issue 34 the features' own connection to
 * the session's `cdp_url` (cdp-connection.ts), which the adapters open with
 * `openRemoteFeatures()` (remote-features.ts) alongside their library's connect. On the
 * library's own browser-level session (Playwright's `newBrowserCDPSession()`, Puppeteer's browser
 * target) it could only open after the connect: two serial round trips per launch. The exposeNetwork
 * tunnel, the WebSocket bridge, downloads, uploads and geo overrides share it:
 *
 * - `remoteCdpFor(browser, open)`: the RemoteCdp the adapter adopted for the browser
 *   (`adoptRemoteCdp`), else one opened on `open` (a library's session); `close()` ends it.
 * - Every `send` and `on` is typed from `devtools-protocol` (CdpSession); every event handler
 *   runs behind the dispatch guard (guardListener): nothing a page, the service or a closed
 *   connection does makes a handler's exception reach the user's process.
 * - `targets` follows every target (pages, popups, OOPIF iframes, workers, service workers) with
 *   `Target.setDiscoverTargets`: a top-level page (`isPageFrame`) and each target's current URL.
 * - `intercept()` is the one owner of the `Fetch` domain (fetch-interception.ts): the union of
 *   the features' patterns, dispatched in the fixed INTERCEPT_ORDER, with the tunnel → downloads
 *   hand-off of served responses (`offerServed`).
 * - `attach(targetId)` is the one way into a target (target-session.ts, target-routing.ts).
 * - Two connections, no shared order: nothing the user's next command needs is left in flight
 *   when a launch returns: `ready()` waits for the setup batch and for the WebSocket bridge's
 *   scripts on the tabs there (`waitFor()`).
 *
 * Setup in one round trip, and the extension points for a feature (geo overrides, …):
 * - Session-wide setup: `setup(...calls)` sends the calls at once, without waiting for the
 *   answer of any other; `Target.setDiscoverTargets` (open) and every `Fetch.enable` of
 *   `intercept()` join the same batch. A feature adds its browser-level commands with
 *   `setup()` while starting and does not await them; the adapter awaits `ready()` once, after
 *   every feature has started, so the whole start costs one round trip.
 * - Per-target setup: `addTargetSetup(contribution)` gives the commands a target needs when a
 *   session attaches to it (geo's `Emulation.set*Override`, `Network.setUserAgentOverride`).
 *   `attach()` sends them together as the session's first commands, before the attaching
 *   feature's; a target it holds (a paused document request, one waiting for the debugger)
 *   runs its first script only after them.
 *
 * Why non-flat target sessions: a RemoteCdp may still run on a library's own session
 * (remoteCdpFor's `open`: startTransfers() on a browser of the user's own `puppeteer.connect`),
 * and Playwright's `newBrowserCDPSession()` drops the messages of flattened child sessions;
 * non-flat ones work on both: one abstraction. The one exception is geo's hold on the workers
 * of the session's own tab (geo-overrides.ts): only a flat auto-attach
 * (`Target.autoAttachRelated`) keeps a worker from starting until we resume it, so on a
 * connection of our own (`speaksFlat`) those few commands go to flat sessions
 * (`sendToSession()`). The browser target's `Fetch` domain sees every request of every target
 * from the moment it is enabled, after every page-level interception: Playwright's
 * `page.route()`/`context.route()` and Puppeteer's request interception come first.
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

/** A feature's per-target setup: the commands `target` gets when a session attaches to it. */
export type TargetSetup = (target: RemoteTarget | undefined, targetId: string) => CdpCall[];

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
  readonly #channel: CdpChannel;
  readonly #targets = new Map<string, RemoteTarget>();
  readonly #fetch: FetchInterception;
  readonly #targetSetup: TargetSetup[] = [];
  readonly #routing: TargetRouting;
  /** Setup calls sent and not answered yet (ready() waits for them). */
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #unsubscribe: (() => void)[] = [];
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
    void cdp.setup({ method: 'Target.setDiscoverTargets', params: { discover: true } });
    return cdp;
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

  /**
   * Whether this connection speaks flat target sessions (`sendToSession()`, the sessions
   * `Target.autoAttachRelated` attaches): the features' own connection does, a library's
   * browser-level session does not.
   */
  get speaksFlat(): boolean {
    return this.#channel.sendToSession !== undefined;
  }

  /** Sends a command on the flat target session `sessionId` (see `speaksFlat`). */
  async sendToSession<M extends CdpCommand>(
    sessionId: string,
    method: M,
    ...params: CdpParams<M>
  ): Promise<CdpResult<M>> {
    const channel = this.#channel;
    if (!channel.sendToSession) throw new Error('this CDP connection has no flat sessions');
    return (await channel.sendToSession(sessionId, method, params[0])) as CdpResult<M>;
  }

  /** Listens to a browser-level event (behind the dispatch guard); returns how to stop. */
  on<E extends CdpEvent>(event: E, listener: CdpListener<E>): () => void {
    const guarded = guardListener(event, listener) as (params: never) => void;
    this.#channel.on(event, guarded);
    return () => {
      this.#channel.off(event, guarded);
    };
  }

  /**
   * Session-wide setup: sends `calls` at once, joined to the batch `ready()` waits for. The
   * returned promise rejects when one fails; a caller that only needs the batch ignores it.
   */
  setup(...calls: CdpCall[]): Promise<void> {
    return this.#track(sendAll(this, calls));
  }

  /**
   * Joins `pending` (a feature's setup on a target, which reports its own failure) to what
   * ready() waits for; its failure is not ready()'s.
   */
  waitFor(pending: Promise<unknown>): void {
    const settled = pending.then(
      () => {},
      () => {},
    );
    this.#inFlight.add(settled);
    void settled.then(() => this.#inFlight.delete(settled));
  }

  /**
   * Resolves when every setup call sent so far (setup(), intercept(), open(), waitFor()) is answered;
   * rejects with the first that failed. Adapters await it once, after starting every feature.
   */
  async ready(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    if (this.#setupFailure) throw this.#setupFailure;
  }

  /**
   * Adds a feature's interception (fetch-interception.ts) and sends the new patterns as part of
   * the setup batch; the returned function removes it again.
   */
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

  /** Registers a feature's per-target setup (see the module comment); returns how to remove it. */
  addTargetSetup(contribution: TargetSetup): () => void {
    this.#targetSetup.push(contribution);
    return () => {
      const at = this.#targetSetup.indexOf(contribution);
      if (at >= 0) this.#targetSetup.splice(at, 1);
    };
  }

  /**
   * Attaches a non-flat session to `targetId` (target-session.ts, target-routing.ts) and sends
   * every per-target setup contribution on it, then `first` (the attaching feature's own first
   * commands), all at once as its first commands. Returns at once: when no other session of
   * ours is on the target, the commands go out in the same write as the attach, so they reach
   * the target before anything sent after this call (a navigation the user starts).
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
    const target = this.#targets.get(targetId);
    const calls = this.#targetSetup.flatMap((contribution) => contribution(target, targetId));
    const setupDone = sendAll(session, [...calls, ...first]);
    setupDone.catch((error: unknown) =>
      debug(`setup of target ${targetId} failed: ${(error as Error).message}`),
    );
    return { session, attached, setupDone };
  }

  /** Ends the session (idempotent); the browser and its connection stay. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      for (const stop of this.#unsubscribe.splice(0)) stop();
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

const opened = new WeakMap<object, Promise<RemoteCdp>>();

/**
 * The one RemoteCdp of a native browser, opened on first ask with `open` (the adapter's
 * browser-level session) and closed when the browser disconnects. Every feature of the same
 * browser gets the same instance.
 */
export function remoteCdpFor(browser: object, open: () => Promise<CdpChannel>): Promise<RemoteCdp> {
  let cdp = opened.get(browser);
  if (!cdp) {
    cdp = open().then((channel) => RemoteCdp.open(channel));
    opened.set(browser, cdp);
    cdp.catch(() => opened.delete(browser));
  }
  return cdp;
}

/**
 * Makes `cdp` (opened elsewhere: openRemoteFeatures() on the features' own connection) the one
 * RemoteCdp of `browser`, which remoteCdpFor() returns to every feature of that browser.
 */
export function adoptRemoteCdp(browser: object, cdp: Promise<RemoteCdp>): void {
  opened.set(browser, cdp);
  cdp.catch(() => {
    if (opened.get(browser) === cdp) opened.delete(browser);
  });
}
