/**
 * The one thing an adapter provides to remote CDP: a browser-level CDP session of the library
 * it connected with. Playwright: `await browser.newBrowserCDPSession()`; Puppeteer:
 * `await browser.target().createCDPSession()`. Both already have this shape, so an adapter
 * passes its session through `cdpChannel()` and nothing else.
 */

/** A CDP event's listener: the event's `params`. */
export type CdpListener = (params: never) => void;

export interface CdpChannel {
  /** Sends one command on the browser target; resolves with its result. */
  send(method: string, params?: object): Promise<unknown>;
  /** Listens to one event of the browser target (e.g. `Fetch.requestPaused`). */
  on(event: string, listener: CdpListener): unknown;
  off(event: string, listener: CdpListener): unknown;
  /** Ends the session; the browser connection stays. */
  detach(): Promise<void>;
}

/**
 * Narrows a library's CDP session (Playwright's or Puppeteer's `CDPSession`, whose `send` is
 * typed per protocol method) to the untyped channel remote CDP speaks.
 */
export function cdpChannel(session: {
  send(method: never, params?: never): Promise<unknown>;
  on(event: never, listener: never): unknown;
  off(event: never, listener: never): unknown;
  detach(): Promise<void>;
}): CdpChannel {
  const untyped = session as unknown as CdpChannel;
  return {
    send: (method, params) => untyped.send(method, params),
    on: (event, listener) => untyped.on(event, listener),
    off: (event, listener) => untyped.off(event, listener),
    detach: () => untyped.detach(),
  };
}
