/**
 * Remote CDP: what the library does over the CDP connection it already has, for both Playwright
 * and Puppeteer, on ONE browser-level CDP session per connected browser (see cdp-channel.ts for
 * what an adapter provides). Features (the exposeNetwork tunnel, downloads, uploads) share it:
 *
 * - `remoteCdpFor(browser, open)` opens the session once per native browser and returns the
 *   same `RemoteCdp` to every feature that asks; `close()` ends it with the browser.
 * - `targets` follows every target of the browser (pages, popups, OOPIF iframes, workers,
 *   service workers) with `Target.setDiscoverTargets`, so a feature can tell a top-level page
 *   (`isPageFrame`) from a frame inside one and knows each target's current URL.
 * - `intercept()` is the one owner of the `Fetch` domain on the session: features register
 *   patterns and a handler, the session enables the union of all patterns (so a request no
 *   feature asked for is never paused) and hands each paused request to the first feature
 *   whose patterns match it; one that no feature answers is continued.
 *
 * Why browser level and not a session per target: Playwright's `newBrowserCDPSession()` drops
 * the messages of flattened child sessions (its connection routes only sessions it created),
 * and Chromium refuses non-flat auto-attach at browser level ("Only flatten protocol is
 * supported with browser level auto-attach"). The browser target's `Fetch` domain sees every
 * request of every target (frames, OOPIFs, dedicated, shared and service workers) from the
 * moment it is enabled, so no target has to be held at start with `waitForDebuggerOnStart`,
 * and it acts after every page-level interception: Playwright's `page.route()`/`context.route()`
 * and Puppeteer's request interception see a request first, and the browser level sees only
 * what they continue.
 */
import { createDebug } from '../http/debug.js';
import type { CdpChannel, CdpListener } from './cdp-channel.js';
import { urlPatternMatches } from './url-pattern.js';

const debug = createDebug('remote-cdp');

/** One target of the browser, as `Target.targetInfoChanged` last described it. */
export interface RemoteTarget {
  targetId: string;
  /** `page`, `iframe` (an out-of-process frame), `worker`, `shared_worker`, `service_worker`, … */
  type: string;
  url: string;
  openerId?: string;
  browserContextId?: string;
}

/** `Fetch.RequestPattern`. */
export interface FetchPattern {
  urlPattern: string;
  resourceType?: string;
  requestStage?: 'Request' | 'Response';
}

/** `Fetch.requestPaused`'s params (the fields remote CDP features read). */
export interface PausedRequest {
  requestId: string;
  request: {
    url: string;
    urlFragment?: string;
    method: string;
    headers: Record<string, string>;
    postData?: string;
    hasPostData?: boolean;
    postDataEntries?: { bytes?: string }[];
  };
  frameId: string;
  resourceType: string;
  responseErrorReason?: string;
  responseStatusCode?: number;
  responseStatusText?: string;
  responseHeaders?: { name: string; value: string }[];
  networkId?: string;
  redirectedRequestId?: string;
}

/** A feature's claim on paused requests. */
export interface FetchInterceptor {
  /** The requests to pause for this feature; nothing else is paused on its behalf. */
  patterns: FetchPattern[];
  /**
   * Called for each paused request that matches `patterns`. Resolve `true` after answering it
   * (`Fetch.fulfillRequest`, `failRequest`, `continueRequest`, …), `false` to pass it on to the
   * next feature (and at the end, to be continued unchanged).
   */
  onPaused(event: PausedRequest): Promise<boolean>;
}

export class RemoteCdp {
  readonly #channel: CdpChannel;
  readonly #targets = new Map<string, RemoteTarget>();
  readonly #interceptors: FetchInterceptor[] = [];
  #fetchEnabled = false;
  #closed: Promise<void> | undefined;
  readonly #unsubscribe: (() => void)[] = [];

  /**
   * Set by the download bridge: offered each response the client serves itself (the tunnel),
   * before its body is read; resolves `true` once it answered the request (a download, whose
   * body it keeps on the client), `false` to leave the response to the caller.
   */
  clientResponseSink:
    | ((
        event: PausedRequest,
        status: number,
        headers: { name: string; value: string }[],
        body: AsyncIterable<Buffer>,
      ) => Promise<boolean>)
    | undefined;

  private constructor(channel: CdpChannel) {
    this.#channel = channel;
  }

  /** Starts following the browser's targets on `channel`; see remoteCdpFor() for sharing. */
  static async open(channel: CdpChannel): Promise<RemoteCdp> {
    const cdp = new RemoteCdp(channel);
    const set = (info: RemoteTarget) => cdp.#targets.set(info.targetId, info);
    cdp.#unsubscribe.push(
      cdp.on('Target.targetCreated', (e: { targetInfo: RemoteTarget }) => set(e.targetInfo)),
      cdp.on('Target.targetInfoChanged', (e: { targetInfo: RemoteTarget }) => set(e.targetInfo)),
      cdp.on('Target.targetDestroyed', (e: { targetId: string }) =>
        cdp.#targets.delete(e.targetId),
      ),
      cdp.on('Fetch.requestPaused', (e: PausedRequest) => void cdp.#dispatch(e)),
    );
    await channel.send('Target.setDiscoverTargets', { discover: true });
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
  async send<T = unknown>(method: string, params?: object): Promise<T> {
    return (await this.#channel.send(method, params)) as T;
  }

  /** Listens to a browser-level event; returns the function that stops listening. */
  on<P>(event: string, listener: (params: P) => void): () => void {
    const untyped = listener as CdpListener;
    this.#channel.on(event, untyped);
    return () => {
      this.#channel.off(event, untyped);
    };
  }

  /**
   * Adds a feature's interception (see FetchInterceptor). Resolves once Chromium pauses the
   * feature's requests; the returned function removes it again.
   */
  async intercept(interceptor: FetchInterceptor): Promise<() => Promise<void>> {
    this.#interceptors.push(interceptor);
    await this.#updateFetch();
    return async () => {
      const at = this.#interceptors.indexOf(interceptor);
      if (at < 0) return;
      this.#interceptors.splice(at, 1);
      await this.#updateFetch();
    };
  }

  /** Ends the session (idempotent); the browser and its connection stay. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      for (const stop of this.#unsubscribe.splice(0)) stop();
      this.#interceptors.length = 0;
      await this.#channel.detach().catch((error: unknown) => {
        debug(`detaching the browser session failed: ${(error as Error).message}`);
      });
    })();
    return this.#closed;
  }

  async #updateFetch(): Promise<void> {
    const patterns = this.#interceptors.flatMap((i) => i.patterns);
    if (patterns.length > 0) {
      await this.send('Fetch.enable', { patterns });
      this.#fetchEnabled = true;
    } else if (this.#fetchEnabled) {
      this.#fetchEnabled = false;
      await this.send('Fetch.disable');
    }
  }

  async #dispatch(event: PausedRequest): Promise<void> {
    const atResponse =
      event.responseStatusCode !== undefined || event.responseErrorReason !== undefined;
    try {
      for (const interceptor of [...this.#interceptors]) {
        if (!interceptor.patterns.some((p) => patternMatches(p, event, atResponse))) continue;
        if (await interceptor.onPaused(event)) return;
      }
      await this.send(atResponse ? 'Fetch.continueResponse' : 'Fetch.continueRequest', {
        requestId: event.requestId,
      });
    } catch (error) {
      // The target may be gone (tab closed, navigation cancelled the request): nothing to answer.
      debug(`paused request ${event.request.url} not answered: ${(error as Error).message}`);
    }
  }
}

function patternMatches(pattern: FetchPattern, event: PausedRequest, atResponse: boolean): boolean {
  if ((pattern.requestStage === 'Response') !== atResponse) return false;
  if (pattern.resourceType !== undefined && pattern.resourceType !== event.resourceType)
    return false;
  return urlPatternMatches(pattern.urlPattern, event.request.url);
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
