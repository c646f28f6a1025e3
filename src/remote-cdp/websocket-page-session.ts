/**
 * The WebSocket bridge's side of one page target (websocket-bridge.ts): its page scripts and
 * binding, installed as the first commands of a session RemoteCdp.attach() opens on the page
 * (target-session.ts speaks the protocol), and the sockets its documents opened. Nothing a page
 * sends can throw out of here: every handler runs behind the dispatch guard, a malformed message
 * is dropped with a debug line, and a binding call from a document that is not on an exposed
 * host (its origin as Chromium reports it for the calling context, which a page cannot forge)
 * opens nothing: its socket fails as an unreachable host's would.
 */
import { createDebug } from '../http/debug.js';
import { type BridgedSocket, openBridgedSocket, type SocketEvent } from './bridged-socket.js';
import { type CdpCall, sendAll } from './cdp-channel.js';
import type { ExposedHosts } from './host-patterns.js';
import type { RemoteCdp } from './remote-cdp.js';
import type { TargetSession } from './target-session.js';
import { type PageMessage, parsePageMessage } from './websocket-messages.js';

const debug = createDebug('expose-network');

export interface PageSessionOptions {
  hosts: ExposedHosts;
  /** The isolated world the binding lives in, and the binding's name. */
  world: string;
  binding: string;
  /** The DOM event socket events are delivered to the page with. */
  down: string;
  /** The commands that put the bridge in a page (the same for every page: websocket-bridge.ts). */
  setup: readonly CdpCall[];
}

export class PageSession {
  readonly #cdp: RemoteCdp;
  readonly #session: TargetSession;
  readonly #options: PageSessionOptions;
  /** The bridge's isolated-world contexts by id, with their origin as Chromium reports it. */
  readonly #contexts = new Map<number, string>();
  /** `${contextId}:${socketId}` → the socket Node opened for it. */
  readonly #sockets = new Map<string, BridgedSocket>();

  /**
   * Attaches to the page and installs the bridge at once: when no other session of ours is on
   * the page, the scripts go out in the same write as the attach (RemoteCdp.attach()). With
   * `held`, the flat session of a page held at its start (page-hold.ts), the scripts go out on
   * it before the page is resumed.
   */
  constructor(cdp: RemoteCdp, targetId: string, options: PageSessionOptions, held?: TargetSession) {
    this.#cdp = cdp;
    this.#options = options;
    const notBridged = (error: unknown) =>
      debug(`WebSockets of page ${targetId} not bridged: ${(error as Error).message}`);
    const attach = held
      ? { session: held, setupDone: sendAll(held, options.setup) }
      : cdp.attach(targetId, options.setup);
    const session = attach.session;
    attach.setupDone.catch(notBridged);
    // A launch returns once the tabs there have the scripts (ready()): the user's first
    // navigation may come on another connection than this session's.
    cdp.waitFor(attach.setupDone);
    this.#session = session;
    void session.closed.then((reason) => this.#closeSockets(reason.message));
    session.on('Runtime.executionContextCreated', ({ context }) => {
      if (context.name === options.world) this.#contexts.set(context.id, context.origin);
    });
    session.on('Runtime.executionContextDestroyed', (e) => this.#contextGone(e.executionContextId));
    session.on('Runtime.executionContextsCleared', () => {
      for (const id of [...this.#contexts.keys()]) this.#contextGone(id);
    });
    session.on('Runtime.bindingCalled', (e) => {
      if (e.name === options.binding) this.#fromPage(e.executionContextId, e.payload);
    });
  }

  /** Settles with the reason once the page's session ends (the page went, the connection dropped). */
  get closed(): Promise<Error> {
    return this.#session.closed;
  }

  /** The bridge stops: every socket of this page closes and the session (with its scripts) ends. */
  async stop(): Promise<void> {
    this.#closeSockets('the bridge stopped');
    await this.#session.detach();
  }

  #closeSockets(reason: string): void {
    if (this.#sockets.size > 0) debug(`closing the bridged sockets of a page: ${reason}`);
    for (const socket of this.#sockets.values()) socket.terminate();
    this.#sockets.clear();
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
    this.#session
      .send('Runtime.evaluate', {
        expression: `document.dispatchEvent(new CustomEvent(${JSON.stringify(this.#options.down)}, { detail: ${detail} }))`,
        contextId,
      })
      .catch((error: Error) => debug(`socket event not delivered: ${error.message}`));
  }

  #fromPage(contextId: number, payload: string): void {
    const parsed = parsePageMessage(payload);
    if (!parsed.ok) {
      debug(
        `page ${this.#session.targetId}: malformed WebSocket message dropped (${parsed.reason})`,
      );
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
    const socket = await openBridgedSocket({
      hosts: this.#options.hosts,
      pageOrigin: this.#contexts.get(contextId),
      topUrl: this.#cdp.targets.get(this.#session.targetId)?.url,
      url: message.url,
      protocols: message.protocols,
      cookies: (urls) => this.#session.send('Network.getCookies', { urls }),
      onEvent: (event) => {
        if (event.type === 'close' && this.#sockets.get(key) === socket) this.#sockets.delete(key);
        this.#toPage(contextId, { ...event, id: message.id });
      },
    });
    if (!socket) {
      this.#fail(contextId, message.id);
      return;
    }
    if (!this.#contexts.has(contextId) || this.#session.closedReason)
      socket.terminate(); // the page went away meanwhile
    else this.#sockets.set(key, socket);
  }
}
