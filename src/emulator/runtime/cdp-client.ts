/**
 * The runtime's own CDP connection: one websocket to the browser endpoint, flattened target
 * sessions, request ids mapped to promises with a per-call timeout. Its traffic is internal and
 * never counts as session activity (only client traffic through the proxy and page actions do).
 */
import { type Dispatcher, WebSocket } from 'undici';
import { type DevtoolsEndpoint, devtoolsDispatcher, devtoolsWsUrl } from './devtools-endpoint.js';

export class CdpTimeoutError extends Error {
  override name = 'CdpTimeoutError';
}

export class CdpClosedError extends Error {
  override name = 'CdpClosedError';
}

/** An error answer from Chromium (`{ error: { code, message } }`). */
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

type EventListener = (params: unknown, sessionId: string | undefined) => void;

interface Message {
  id?: number;
  method?: string;
  params?: unknown;
  sessionId?: string;
  result?: unknown;
  error?: { code: number; message: string };
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface SendOptions {
  /** Flattened target session the command is for; absent for browser-level commands. */
  sessionId?: string;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export class CdpClient {
  #ws: WebSocket;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #listeners = new Map<string, Set<EventListener>>();
  #closed = false;
  #closeListeners = new Set<() => void>();

  /** Closed with the connection: the socket endpoint's own dispatcher. */
  #dispatcher: Dispatcher | undefined;

  private constructor(ws: WebSocket, dispatcher: Dispatcher | undefined) {
    this.#ws = ws;
    this.#dispatcher = dispatcher;
    ws.addEventListener('message', (event) => this.#onMessage(String(event.data)));
    ws.addEventListener('close', () => this.#onClose());
    ws.addEventListener('error', () => this.#onClose());
  }

  /** Opens the websocket at `path` (`/devtools/browser/<uuid>`) of Chromium's DevTools endpoint. */
  static connect(endpoint: DevtoolsEndpoint, path: string, timeoutMs = 10_000): Promise<CdpClient> {
    return new Promise((resolve, reject) => {
      const dispatcher = devtoolsDispatcher(endpoint);
      const ws = new WebSocket(devtoolsWsUrl(endpoint, path), dispatcher ? { dispatcher } : {});
      const timer = setTimeout(() => {
        ws.close();
        void dispatcher?.destroy().catch(() => {});
        reject(new CdpTimeoutError(`CDP websocket did not open within ${timeoutMs} ms`));
      }, timeoutMs);
      ws.addEventListener('open', () => {
        clearTimeout(timer);
        resolve(new CdpClient(ws, dispatcher));
      });
      ws.addEventListener('error', () => {
        clearTimeout(timer);
        void dispatcher?.destroy().catch(() => {});
        reject(new CdpClosedError('could not open the CDP websocket to Chromium'));
      });
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  send<T = unknown>(method: string, params: object = {}, options: SendOptions = {}): Promise<T> {
    if (this.#closed)
      return Promise.reject(new CdpClosedError(`${method}: browser connection closed`));
    const id = this.#nextId++;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new CdpTimeoutError(`${method} got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, {
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        timer,
      });
      const message: Record<string, unknown> = { id, method, params };
      if (options.sessionId) message.sessionId = options.sessionId;
      this.#ws.send(JSON.stringify(message));
    });
  }

  /** Subscribes to an event (of every session); returns the unsubscribe function. */
  on<P>(method: string, listener: (params: P, sessionId: string | undefined) => void): () => void {
    const set = this.#listeners.get(method) ?? new Set();
    this.#listeners.set(method, set);
    const untyped = listener as EventListener;
    set.add(untyped);
    return () => set.delete(untyped);
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#closeListeners.add(listener);
  }

  close(): void {
    if (!this.#closed) this.#ws.close();
    this.#onClose();
  }

  #onMessage(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message.id === 'number') {
      const pending = this.#pending.get(message.id);
      if (!pending) return; // timed out earlier
      this.#pending.delete(message.id);
      clearTimeout(pending.timer);
      if (message.error) {
        pending.reject(
          new CdpProtocolError(pending.method, message.error.code, message.error.message),
        );
      } else {
        pending.resolve(message.result);
      }
      return;
    }
    const listeners = message.method && this.#listeners.get(message.method);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(message.params, message.sessionId);
      } catch {
        // One broken listener must not starve the others.
      }
    }
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    void this.#dispatcher?.destroy().catch(() => {});
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new CdpClosedError(`${pending.method}: browser connection closed`));
    }
    this.#pending.clear();
    for (const listener of this.#closeListeners) listener();
    this.#closeListeners.clear();
  }
}
