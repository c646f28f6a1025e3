/**
 * The one owner of the `Fetch` domain on the browser-level session. Features register an
 * interceptor; the session enables the union of their patterns (so a request no feature asked
 * for is never paused) and hands each paused request to the features whose patterns match it,
 * in the fixed order of INTERCEPT_ORDER (not the order they registered in). One that no feature
 * answers is continued unchanged.
 *
 * The hand-off between the tunnel and downloads is explicit too: a response the client served
 * itself (the tunnel fetched it from this machine) never reaches the Response stage in the
 * browser, so the tunnel offers it to the features after it in INTERCEPT_ORDER that take served
 * responses (`onServed`), before it reads the body.
 */
import type { Protocol } from 'devtools-protocol';
import { createDebug } from '../http/debug.js';
import type { CdpCommand, CdpParams, CdpResult } from './cdp-channel.js';
import { urlPatternMatches } from './url-pattern.js';

const debug = createDebug('remote-cdp');

/** `Fetch.RequestPattern`. */
export type FetchPattern = Protocol.Fetch.RequestPattern;
/** `Fetch.requestPaused`'s params. */
export type PausedRequest = Protocol.Fetch.RequestPausedEvent;
/** A response header as CDP carries it. */
export type HeaderEntry = Protocol.Fetch.HeaderEntry;

/**
 * Who sees a paused request first. The WebSocket bridge holds an exposed document until its
 * page can bridge WebSockets, then passes it on; the tunnel serves exposed hosts (and offers a
 * served download to `downloads`); downloads take the document responses the browser fetched
 * itself. A feature added later takes its place here, by name.
 */
export const INTERCEPT_ORDER = ['websocket-bridge', 'network-tunnel', 'downloads'] as const;
export type InterceptorRole = (typeof INTERCEPT_ORDER)[number];

/** A response the client fetched itself for a paused request, offered before its body is read. */
export interface ServedResponse {
  status: number;
  headers: HeaderEntry[];
  body: AsyncIterable<Buffer>;
  /** Drops the body unread (frees the connection it comes on). */
  cancel(): void;
}

/** A feature's claim on paused requests. */
export interface FetchInterceptor {
  /** Its place in INTERCEPT_ORDER. */
  role: InterceptorRole;
  /** The requests to pause for this feature; nothing else is paused on its behalf. */
  patterns: FetchPattern[];
  /**
   * Called for each paused request that matches `patterns`. Resolve `true` after answering it
   * (`Fetch.fulfillRequest`, `failRequest`, `continueRequest`, …), `false` to pass it on to the
   * next feature (and at the end, to be continued unchanged).
   */
  onPaused(event: PausedRequest): Promise<boolean>;
  /**
   * A response a feature earlier in the order served from the client (ServedResponse). Resolve
   * `true` after answering the request (the body is then this feature's), `false` to leave it.
   */
  onServed?(event: PausedRequest, response: ServedResponse): Promise<boolean>;
}

type Send = <M extends CdpCommand>(method: M, ...params: CdpParams<M>) => Promise<CdpResult<M>>;

export class FetchInterception {
  readonly #send: Send;
  readonly #interceptors: FetchInterceptor[] = [];
  #enabled = false;

  constructor(send: Send) {
    this.#send = send;
  }

  /**
   * Adds `interceptor` in its place of INTERCEPT_ORDER and sends the new pattern union at once;
   * `applied` settles when Chromium pauses its requests.
   */
  add(interceptor: FetchInterceptor): { applied: Promise<void>; remove: () => Promise<void> } {
    this.#interceptors.push(interceptor);
    this.#interceptors.sort((a, b) => rank(a.role) - rank(b.role));
    const applied = this.#update();
    const remove = async () => {
      const at = this.#interceptors.indexOf(interceptor);
      if (at < 0) return;
      this.#interceptors.splice(at, 1);
      await this.#update();
    };
    return { applied, remove };
  }

  /** Sends the pattern union again (a new connection: remote-cdp.ts reopen()). */
  resend(): Promise<void> {
    this.#enabled = false;
    return this.#update();
  }

  /** Forgets every interceptor (the session closed; nothing is sent). */
  clear(): void {
    this.#interceptors.length = 0;
  }

  /** Answers one paused request; never throws (the dispatch guard's contract). */
  async dispatch(event: PausedRequest): Promise<void> {
    const atResponse =
      event.responseStatusCode !== undefined || event.responseErrorReason !== undefined;
    try {
      for (const interceptor of [...this.#interceptors]) {
        if (!interceptor.patterns.some((p) => patternMatches(p, event, atResponse))) continue;
        if (await interceptor.onPaused(event)) return;
      }
      if (atResponse) await this.#send('Fetch.continueResponse', { requestId: event.requestId });
      else await this.#send('Fetch.continueRequest', { requestId: event.requestId });
    } catch (error) {
      // The target may be gone (tab closed, navigation cancelled the request): nothing to answer.
      debug(`paused request ${event.request.url} not answered: ${(error as Error).message}`);
    }
  }

  /**
   * Offers a response `from` served on the client to the features after it that take served
   * responses; resolves `true` once one answered the request.
   */
  async offerServed(
    from: InterceptorRole,
    event: PausedRequest,
    response: ServedResponse,
  ): Promise<boolean> {
    for (const interceptor of [...this.#interceptors]) {
      if (rank(interceptor.role) <= rank(from) || !interceptor.onServed) continue;
      if (await interceptor.onServed(event, response)) return true;
    }
    return false;
  }

  async #update(): Promise<void> {
    const patterns = this.#interceptors.flatMap((i) => i.patterns);
    if (patterns.length > 0) {
      this.#enabled = true;
      await this.#send('Fetch.enable', { patterns });
    } else if (this.#enabled) {
      this.#enabled = false;
      await this.#send('Fetch.disable');
    }
  }
}

function rank(role: InterceptorRole): number {
  return INTERCEPT_ORDER.indexOf(role);
}

function patternMatches(pattern: FetchPattern, event: PausedRequest, atResponse: boolean): boolean {
  if ((pattern.requestStage === 'Response') !== atResponse) return false;
  if (pattern.resourceType !== undefined && pattern.resourceType !== event.resourceType)
    return false;
  return urlPatternMatches(pattern.urlPattern ?? '*', event.request.url);
}
