/**
 * The runtime's own CDP connection: one websocket to the browser endpoint, flattened target
 * sessions, request ids mapped to promises with a per-call timeout. Its traffic is internal and
 * never counts as session activity (only client traffic through the proxy and page actions do).
 */
import { WebSocket } from 'ws';
import { connectDevtools, type DevtoolsEndpoint, devtoolsWsUrl } from './devtools-endpoint.js';

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

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on('message', (data) => this.#onMessage(String(data)));
    ws.on('close', () => this.#onClose());
    ws.on('error', () => this.#onClose());
  }

  /**
   * Opens the websocket at `path` (`/devtools/browser/<uuid>`) of Chromium's DevTools endpoint,
   * over the endpoint's own connection (its TCP port, or the sandbox's socket).
   */
  static connect(endpoint: DevtoolsEndpoint, path: string, timeoutMs = 10_000): Promise<CdpClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(devtoolsWsUrl(endpoint, path), {
        createConnection: () => connectDevtools(endpoint),
        // Chromium's answers (a full-page screenshot) can be large; no compression on loopback.
        maxPayload: 0,
        perMessageDeflate: false,
      });
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new CdpTimeoutError(`CDP websocket did not open within ${timeoutMs} ms`));
      }, timeoutMs);
      const failed = () => {
        clearTimeout(timer);
        reject(new CdpClosedError('could not open the CDP websocket to Chromium'));
      };
      ws.once('error', failed);
      ws.once('open', () => {
        clearTimeout(timer);
        ws.off('error', failed);
        resolve(new CdpClient(ws));
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
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new CdpClosedError(`${pending.method}: browser connection closed`));
    }
    this.#pending.clear();
    for (const listener of this.#closeListeners) listener();
    this.#closeListeners.clear();
  }
}
