/**
 * A browser-level CDP connection of our own over a `ws` WebSocket (the remote features', the
 * CLI's, the emulator runtime's), to a URL or on a socket the caller created. Typed from
 * `devtools-protocol`; flat target sessions (`session()`, `call()` with a `sessionId`); an
 * optional per-call timeout; ONE stored reason every call rejects with once it ends; every
 * listener behind the dispatch guard. `channel()` is the CdpChannel remote CDP speaks. No
 * message names the URL: a session's `cdp_url` holds its access token.
 */
import { type ClientOptions, WebSocket } from 'ws';
import { createDebug } from '../http/debug.js';
import { nodeEvents } from '../http/node-builtins.js';
import { redactMessage } from '../http/redact.js';
import {
  type CdpChannel,
  type CdpCommand,
  type CdpEvent,
  type CdpEventParams,
  type CdpParams,
  type CdpResult,
  type CdpSession,
  guardListener,
} from './cdp-channel.js';

const debug = createDebug('remote-cdp');

/** No answer within the call's timeout, or the socket did not open in time. */
export class CdpTimeoutError extends Error {
  override name = 'CdpTimeoutError';
}

/** The connection ended (or never opened): the stored reason every call rejects with. */
export class CdpClosedError extends Error {
  override name = 'CdpClosedError';
}

/** An error answer from the browser (`{ error: { code, message } }`). */
export class CdpProtocolError extends Error {
  override name = 'CdpProtocolError';
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message}`);
  }
}

export interface CdpConnectionOptions {
  /** Timeout of every call that gives none, in ms. Default: none (the answer or the close). */
  timeoutMs?: number;
  /** How long the socket may take to open, in ms. Default: 30 000. */
  openTimeoutMs?: number;
  /** `ws` options when opening by URL (e.g. `createConnection` for a unix socket). */
  socket?: ClientOptions;
}

export interface CallOptions {
  /** The flat target session the command is for; absent for the browser itself. */
  sessionId?: string;
  /** This call's timeout in ms; default: the connection's. */
  timeoutMs?: number;
}

/** A listener of `on()`: the event's params and the flat session it came from (undefined: the browser). */
export type CdpConnectionListener<E extends CdpEvent> = (
  params: CdpEventParams<E>,
  sessionId: string | undefined,
) => unknown;

type Pending = { method: string; resolve(result: unknown): void; reject(error: Error): void } & {
  timer: NodeJS.Timeout | undefined;
};

/** One message from the browser: an answer (`id`) or an event (`method`); nothing trusted. */
type Incoming = Partial<Record<'id' | 'method' | 'params' | 'sessionId' | 'result', unknown>> & {
  error?: { code?: unknown; message?: unknown };
};

const DEFAULT_OPEN_TIMEOUT_MS = 30_000;

export class CdpConnection {
  readonly #ws: WebSocket;
  readonly #timeoutMs: number | undefined;
  readonly #pending = new Map<number, Pending>();
  /** By event; under '' the listeners of every flat session's events (onSessionEvent). */
  readonly #listeners = new Map<string, Set<(message: Incoming) => void>>();
  readonly #disconnected = new Set<() => void>();
  #lastId = 0;
  #closed: CdpClosedError | undefined;

  private constructor(ws: WebSocket, options: CdpConnectionOptions) {
    this.#ws = ws;
    this.#timeoutMs = options.timeoutMs;
    ws.on('message', (data) => this.#receive(String(data)));
    ws.on('close', (code) => this.#end(new CdpClosedError(`the CDP connection closed (${code})`)));
    ws.on('error', (error) =>
      this.#end(new CdpClosedError(`the CDP connection failed: ${redactMessage(error.message)}`)),
    );
  }

  /**
   * Opens a connection on a WebSocket URL or a socket the caller created (open or connecting);
   * rejects with CdpTimeoutError or CdpClosedError, never naming the URL.
   */
  static open(
    target: string | WebSocket,
    options: CdpConnectionOptions = {},
  ): Promise<CdpConnection> {
    let ws: WebSocket;
    if (typeof target === 'string') {
      try {
        // Chromium's answers (a full-page screenshot) can be large; no compression on CDP.
        ws = new WebSocket(target, { maxPayload: 0, perMessageDeflate: false, ...options.socket });
      } catch {
        return Promise.reject(new CdpClosedError('the CDP URL is not a ws:// or wss:// URL'));
      }
    } else ws = target;
    if (ws.readyState === WebSocket.OPEN) return Promise.resolve(new CdpConnection(ws, options));
    if (ws.readyState !== WebSocket.CONNECTING)
      return Promise.reject(new CdpClosedError('the CDP socket is already closed'));
    return opened(ws, options.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS).then(
      () => new CdpConnection(ws, options),
    );
  }

  /** Why the connection ended, or undefined while it is open. */
  get closedReason(): Error | undefined {
    return this.#closed;
  }

  /** Sends a browser-level command with the connection's timeout. */
  send<M extends CdpCommand>(method: M, ...params: CdpParams<M>): Promise<CdpResult<M>> {
    return this.call(method, params[0], {});
  }

  /** Sends a command to the browser or, with `sessionId`, to that flat target session. */
  call<M extends CdpCommand>(
    method: M,
    params: CdpParams<M>[0],
    options: CallOptions = {},
  ): Promise<CdpResult<M>> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = ++this.#lastId;
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    return new Promise<CdpResult<M>>((resolve, reject) => {
      const expire = () =>
        this.#pending.delete(id) &&
        reject(new CdpTimeoutError(`${method} got no answer within ${timeoutMs} ms`));
      const timer = timeoutMs === undefined ? undefined : setTimeout(expire, timeoutMs);
      this.#pending.set(id, { method, resolve: resolve as (r: unknown) => void, reject, timer });
      const message = { id, method, params: params ?? {}, sessionId: options.sessionId };
      this.#ws.send(JSON.stringify(message), (error) => {
        if (error)
          this.#take(id)?.reject(new CdpClosedError(`${method} not sent: ${error.message}`));
      });
    });
  }

  /** Listens to an event of the browser and every flat session (guarded); returns how to stop. */
  on<E extends CdpEvent>(event: E, listener: CdpConnectionListener<E>): () => void {
    const guarded = guardListener<Incoming>(event, ({ params, sessionId: from }) =>
      listener(params as CdpEventParams<E>, typeof from === 'string' ? from : undefined),
    );
    const set = this.#listeners.get(event) ?? new Set();
    this.#listeners.set(event, set.add(guarded));
    return () => void set.delete(guarded);
  }

  /** The flat target session `sessionId` as a CdpSession: its commands and only its events. */
  session(sessionId: string, options: { timeoutMs?: number } = {}): CdpSession {
    return {
      send: (method, ...params) => this.call(method, params[0], { ...options, sessionId }),
      on: (event, listener) =>
        this.on(event, (params, from) => (from === sessionId ? listener(params) : undefined)),
    };
  }

  /**
   * The browser-level session as a CdpChannel (its events only; a flat session's commands go by
   * `sendToSession`). `detach()` stops the channel's listeners; the connection stays.
   */
  channel(): CdpChannel {
    const subscriptions = new Set<{ event: string; listener: unknown; stop: () => void }>();
    const subscribe = (event: string, listener: unknown, stop: () => void) => {
      subscriptions.add({ event, listener, stop });
      return stop;
    };
    const call = (method: string, params?: object, sessionId?: string): Promise<unknown> =>
      this.call(method as CdpCommand, params as never, { sessionId });
    return {
      send: (method, params) => call(method, params),
      sendToSession: (sessionId, method, params) => call(method, params, sessionId),
      on: (event, listener) => {
        const deliver = listener as (params: unknown) => void;
        const only = (params: unknown, sessionId?: string) => (sessionId ? 0 : deliver(params));
        subscribe(event, listener, this.on(event as CdpEvent, only));
      },
      off: (event, listener) => {
        for (const s of subscriptions) {
          if (s.event !== event || s.listener !== listener) continue;
          s.stop();
          subscriptions.delete(s);
        }
      },
      onSessionEvent: (listener) => {
        const guarded = guardListener<Incoming>('a flat session event', (m) =>
          listener(m.method as string, m.params, m.sessionId as string),
        );
        const all = this.#listeners.get('') ?? new Set();
        this.#listeners.set('', all.add(guarded));
        return subscribe('', listener, () => void all.delete(guarded));
      },
      detach: async () => {
        for (const s of subscriptions) s.stop();
        subscriptions.clear();
      },
    };
  }

  /** Runs `listener` once when the connection ends (at once if it has ended). */
  once(_event: 'disconnected', listener: () => void): this {
    if (this.#closed) listener();
    else this.#disconnected.add(listener);
    return this;
  }

  /** Ends the connection (idempotent): pending calls reject, the socket closes. */
  close(): void {
    this.#end(new CdpClosedError('the CDP connection was closed'));
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.close();
    else if (this.#ws.readyState === WebSocket.CONNECTING) this.#ws.terminate();
  }

  #receive(text: string): void {
    let message: Incoming;
    try {
      message = JSON.parse(text) as Incoming;
    } catch {
      debug('the browser sent a CDP message that is not JSON');
      return;
    }
    if (message === null || typeof message !== 'object') return;
    if (typeof message.id === 'number') {
      const pending = this.#take(message.id);
      const error = message.error;
      if (!pending) return; // timed out, or the connection ended
      if (!error) pending.resolve(message.result ?? {});
      else {
        const code = typeof error.code === 'number' ? error.code : 0;
        const text = typeof error.message === 'string' ? error.message : 'failed';
        pending.reject(new CdpProtocolError(pending.method, code, text));
      }
      return;
    }
    if (typeof message.method !== 'string') return;
    const flat = typeof message.sessionId === 'string' ? this.#listeners.get('') : undefined;
    for (const dispatch of [...(this.#listeners.get(message.method) ?? []), ...(flat ?? [])])
      dispatch(message);
  }

  /** Removes pending call `id` (undefined when it timed out or the connection ended). */
  #take(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    clearTimeout(pending?.timer);
    return pending;
  }

  /** The one place the connection ends: stores `reason`, rejects every pending call with it. */
  #end(reason: CdpClosedError): void {
    if (this.#closed) return;
    this.#closed = reason;
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(reason);
    }
    this.#pending.clear();
    const listeners = [...this.#disconnected];
    this.#disconnected.clear();
    for (const listener of listeners) guardListener('disconnected', listener)(undefined);
  }
}

/** Resolves when the connecting `ws` opens; on failure or timeout it is terminated. */
async function opened(ws: WebSocket, timeoutMs: number): Promise<void> {
  try {
    // once() rejects with the socket's 'error' (ws emits one for every failed connect).
    await nodeEvents().once(ws, 'open', { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    ws.on('error', () => {}); // terminate() of a connecting socket emits one more
    ws.terminate();
    if ((error as Error).name === 'AbortError') {
      throw new CdpTimeoutError(`the CDP connection did not open within ${timeoutMs} ms`);
    }
    const why = redactMessage((error as Error).message);
    throw new CdpClosedError(`could not open the CDP connection: ${why}`);
  }
}
