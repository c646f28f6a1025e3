/**
 * One page target of the WebSocket bridge, attached without flattening (websocket-bridge.ts says
 * why), and the sockets its documents opened. Nothing a page sends can throw out of here: a
 * malformed message is dropped with a debug line, and a binding call from a document that is
 * not on an exposed host (its origin as Chromium reports it for the calling context, which a
 * page cannot forge) opens nothing: its socket fails as an unreachable host's would.
 */
import { createDebug } from '../http/debug.js';
import { type BridgedSocket, openBridgedSocket, type SocketEvent } from './bridged-socket.js';
import type { ExposedHosts } from './host-patterns.js';
import type { RemoteCdp } from './remote-cdp.js';
import { type PageMessage, parsePageMessage } from './websocket-messages.js';

const debug = createDebug('expose-network');

export interface PageSessionOptions {
  hosts: ExposedHosts;
  /** The isolated world the binding lives in, and the binding's name. */
  world: string;
  binding: string;
  /** The DOM event socket events are delivered to the page with. */
  down: string;
  scripts: { main: string; isolated: string };
}

interface Reply {
  id?: number;
  result?: unknown;
  error?: { message: string };
  method?: string;
  params?: Record<string, unknown>;
}

interface Context {
  origin: string;
  frameId: string;
}

export class PageSession {
  /** The session id once attached (undefined when the attach failed). */
  readonly attached: Promise<string | undefined>;
  readonly #cdp: RemoteCdp;
  readonly #targetId: string;
  readonly #options: PageSessionOptions;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  /** The bridge's isolated-world contexts by id, with their origin as Chromium reports it. */
  readonly #contexts = new Map<number, Context>();
  /** `${contextId}:${socketId}` → the socket Node opened for it. */
  readonly #sockets = new Map<string, BridgedSocket>();
  #sessionId: string | undefined;
  #closed: string | undefined;
  #lastId = 0;

  /** Attaches and installs the page scripts at once: the commands go out with the attach. */
  constructor(cdp: RemoteCdp, targetId: string, options: PageSessionOptions) {
    this.#cdp = cdp;
    this.#targetId = targetId;
    this.#options = options;
    this.attached = cdp.send('Target.attachToTarget', { targetId, flatten: false }).then(
      ({ sessionId }) => {
        this.#sessionId = sessionId;
        return sessionId;
      },
      (error: Error) => {
        debug(`WebSockets of page ${targetId} not bridged: ${error.message}`);
        return undefined;
      },
    );
    // Chromium runs scripts to evaluate on new documents only for sessions with Page enabled.
    Promise.all([
      this.#send('Page.enable'),
      this.#send('Runtime.enable'),
      this.#send('Runtime.addBinding', {
        name: options.binding,
        executionContextName: options.world,
      }),
      this.#send('Page.addScriptToEvaluateOnNewDocument', { source: options.scripts.main }),
      this.#send('Page.addScriptToEvaluateOnNewDocument', {
        source: options.scripts.isolated,
        worldName: options.world,
      }),
    ]).catch((error: Error) =>
      debug(`WebSockets of page ${targetId} not bridged: ${error.message}`),
    );
  }

  /** A message of this page's session (a reply or an event); never throws. */
  receive(sessionId: string, text: string): void {
    if (this.#sessionId !== undefined && sessionId !== this.#sessionId) return;
    try {
      this.#receive(JSON.parse(text) as Reply);
    } catch (error) {
      debug(`page ${this.#targetId}: message dropped: ${(error as Error).message}`);
    }
  }

  /** Closes every socket of this page: the tab is gone or the bridge stops. */
  closeAll(reason: string): void {
    this.#closed ??= reason;
    for (const socket of this.#sockets.values()) socket.terminate();
    this.#sockets.clear();
    for (const pending of this.#pending.values()) pending.reject(new Error(reason));
    this.#pending.clear();
  }

  #receive(message: Reply): void {
    if (message.id !== undefined) {
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error) pending?.reject(new Error(message.error.message));
      else pending?.resolve(message.result);
      return;
    }
    const params = message.params ?? {};
    switch (message.method) {
      case 'Runtime.executionContextCreated': {
        const context = params.context as {
          id: number;
          origin: string;
          name: string;
          auxData?: { frameId?: string };
        };
        if (context.name !== this.#options.world) return;
        this.#contexts.set(context.id, {
          origin: context.origin,
          frameId: context.auxData?.frameId ?? '',
        });
        return;
      }
      case 'Runtime.executionContextDestroyed':
        this.#contextGone(params.executionContextId as number);
        return;
      case 'Runtime.executionContextsCleared':
        for (const id of [...this.#contexts.keys()]) this.#contextGone(id);
        return;
      case 'Runtime.bindingCalled':
        if (params.name === this.#options.binding) {
          this.#fromPage(params.executionContextId as number, String(params.payload));
        }
    }
  }

  #send<T = unknown>(method: string, params: object = {}): Promise<T> {
    if (this.#closed !== undefined) return Promise.reject(new Error(this.#closed));
    const id = ++this.#lastId;
    const answer = new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    });
    // Before the attach answered, the target id names the session (this one is its only one).
    const route =
      this.#sessionId === undefined ? { targetId: this.#targetId } : { sessionId: this.#sessionId };
    this.#cdp
      .send('Target.sendMessageToTarget', {
        ...route,
        message: JSON.stringify({ id, method, params }),
      })
      .catch((error: Error) => {
        this.#pending.get(id)?.reject(error);
        this.#pending.delete(id);
      });
    return answer;
  }

  /** A document navigated away or closed: its sockets go, as a local browser's do (1001). */
  #contextGone(contextId: number): void {
    this.#contexts.delete(contextId);
    for (const [key, socket] of this.#sockets) {
      if (!key.startsWith(`${contextId}:`)) continue;
      this.#sockets.delete(key);
      socket.goingAway();
    }
  }

  #toPage(contextId: number, event: SocketEvent): void {
    const detail = JSON.stringify(JSON.stringify(event));
    this.#send('Runtime.evaluate', {
      expression: `document.dispatchEvent(new CustomEvent(${JSON.stringify(this.#options.down)}, { detail: ${detail} }))`,
      contextId,
    }).catch((error: Error) => debug(`socket event not delivered: ${error.message}`));
  }

  #fromPage(contextId: number, payload: string): void {
    const parsed = parsePageMessage(payload);
    if (!parsed.ok) {
      debug(`page ${this.#targetId}: malformed WebSocket message dropped (${parsed.reason})`);
      return;
    }
    const message = parsed.message;
    const key = `${contextId}:${message.id}`;
    if (message.op === 'open') {
      if (this.#sockets.has(key)) return;
      this.#open(contextId, key, message).catch((error: Error) => {
        debug(`bridged WebSocket not opened: ${error.message}`);
        this.#fail(contextId, message.id);
      });
      return;
    }
    const socket = this.#sockets.get(key);
    if (message.op === 'send') socket?.send(message);
    else socket?.close(message.code, message.reason);
  }

  /** The socket of an unreachable host: an `error`, then a `close` with 1006. */
  #fail(contextId: number, id: number): void {
    this.#toPage(contextId, { id, type: 'error' });
    this.#toPage(contextId, { id, type: 'close', code: 1006, reason: '', wasClean: false });
  }

  async #open(
    contextId: number,
    key: string,
    message: Extract<PageMessage, { op: 'open' }>,
  ): Promise<void> {
    const context = this.#contexts.get(contextId);
    const socket = await openBridgedSocket({
      hosts: this.#options.hosts,
      pageOrigin: context?.origin,
      topUrl: this.#cdp.targets.get(this.#targetId)?.url,
      url: message.url,
      protocols: message.protocols,
      cookies: (urls) => this.#send('Network.getCookies', { urls }),
      onEvent: (event) => {
        if (event.type === 'close' && this.#sockets.get(key) === socket) this.#sockets.delete(key);
        this.#toPage(contextId, { ...event, id: message.id });
      },
    });
    if (!socket) {
      this.#fail(contextId, message.id);
      return;
    }
    if (!this.#contexts.has(contextId))
      socket.terminate(); // the page went away meanwhile
    else this.#sockets.set(key, socket);
  }
}
