/**
 * WebSockets of the `exposeNetwork` tunnel. Chromium's `Fetch` domain does not see WebSockets,
 * so a page of an exposed host gets a page script (webSocketPageScript below, after Playwright's
 * `routeWebSocket()` mock) that replaces `WebSocket` for URLs of exposed hosts with a socket that
 * speaks to Node over a CDP binding; Node opens the real socket from this machine with the `ws`
 * package (loaded only when a page opens one), sending the browser's cookies for the URL and the
 * page's `Origin`, and carries text and binary messages and the close both ways.
 *
 * Timing: the script must be in place before the page's own scripts run. The bridge holds each
 * exposed top-level document request (it sits in front of the tunnel on the same `Fetch`
 * interception) until its page has the binding and the script (`Page.addScriptToEvaluateOnNewDocument`),
 * so the script runs first in that document and every later one of the tab (and its
 * same-process iframes). Workers, out-of-process iframes and documents that do not load through
 * the tunnel first do not get it (docs/remote.md).
 *
 * The page session: Playwright's `newBrowserCDPSession()` drops the messages of flattened child
 * sessions, so the bridge attaches with `flatten: false` and speaks through
 * `Target.sendMessageToTarget` / `Target.receivedMessageFromTarget` on the browser-level session.
 *
 * The door rule (private-network.ts) holds for WebSockets too: Node opens a socket only when the
 * calling document's origin, as Chromium reports it for the binding's execution context (a page
 * cannot forge it), is exposed; any other page's socket fails as an unreachable host would.
 */
import type WebSocketType from 'ws';
import { createDebug } from '../http/debug.js';
import type { PausedRequest } from './fetch-interception.js';
import { type ExposedHosts, parseExposeNetwork } from './host-patterns.js';
import type { RemoteCdp } from './remote-cdp.js';
import { urlPatternRegex } from './url-pattern.js';

const debug = createDebug('expose-network');

/** The binding's name (Runtime.addBinding); the page script takes it off `globalThis` at once. */
const BINDING = '__remoteBrowserWebSocket';
/** The page function Node delivers socket events to. */
const DELIVER = '__remoteBrowserWebSocketDeliver';

/** What a page asks of Node over the binding. */
type PageMessage =
  | { op: 'open'; id: number; url: string; protocols: string[] }
  | { op: 'send'; id: number; text?: string; base64?: string }
  | { op: 'close'; id: number; code?: number; reason?: string };

/**
 * Starts bridging the WebSockets of exposed pages to this machine. Must start before the
 * tunnel (startNetworkTunnel), so that it sees exposed documents first.
 */
export async function startWebSocketBridge(
  cdp: RemoteCdp,
  exposeNetwork: string,
): Promise<() => Promise<void>> {
  const hosts = parseExposeNetwork(exposeNetwork);
  if (hosts.empty) return async () => {};
  const script = webSocketPageScript(
    hosts.fetchPatterns.map((p) => urlPatternRegex(p.urlPattern ?? '*').source),
  );
  const pages = new Map<string, Promise<void>>();
  const sessions = new Map<string, PageSession>();
  const unsubscribe = [
    cdp.on('Target.receivedMessageFromTarget', (e) =>
      sessions.get(e.sessionId)?.receive(e.message),
    ),
    cdp.on('Target.detachedFromTarget', (e) => {
      if (!e.sessionId) return;
      sessions.get(e.sessionId)?.closeAll();
      sessions.delete(e.sessionId);
    }),
    cdp.on('Target.targetDestroyed', (e) => pages.delete(e.targetId)),
  ];
  // Only the attach is awaited: a page's session holds its commands while a navigation is
  // pending (this one is paused right here), and hands them to the new document's renderer
  // at commit, before its scripts run, in the order they were sent.
  const install = async (targetId: string): Promise<void> => {
    try {
      const { sessionId } = await cdp.send('Target.attachToTarget', {
        targetId,
        flatten: false,
      });
      const session = new PageSession(cdp, sessionId, hosts);
      sessions.set(sessionId, session);
      session.start(script).catch((error: Error) => {
        debug(`WebSockets of page ${targetId} not bridged: ${error.message}`);
      });
    } catch (error) {
      debug(`WebSockets of page ${targetId} not bridged: ${(error as Error).message}`);
    }
  };
  const removeInterceptor = cdp.intercept({
    role: 'websocket-bridge',
    patterns: hosts.fetchPatterns.map((p) => ({ ...p, resourceType: 'Document' })),
    onPaused: async (event: PausedRequest) => {
      if (cdp.isPageFrame(event.frameId) && hosts.matches(new URL(event.request.url))) {
        let ready = pages.get(event.frameId);
        if (!ready) {
          ready = install(event.frameId);
          pages.set(event.frameId, ready);
        }
        await ready;
      }
      return false; // the tunnel serves the document itself
    },
  });
  return async () => {
    for (const stop of unsubscribe) stop();
    await removeInterceptor().catch(() => {});
    for (const session of sessions.values()) session.closeAll();
    sessions.clear();
  };
}

/** One page target, attached without flattening, and the sockets its documents opened. */
class PageSession {
  readonly #cdp: RemoteCdp;
  readonly #sessionId: string;
  readonly #hosts: ExposedHosts;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  /** Execution context id → its origin, as Chromium reports it. */
  readonly #origins = new Map<number, string>();
  /** `${contextId}:${socketId}` → the socket Node opened for it. */
  readonly #sockets = new Map<string, WebSocketType>();
  #lastId = 0;

  constructor(cdp: RemoteCdp, sessionId: string, hosts: ExposedHosts) {
    this.#cdp = cdp;
    this.#sessionId = sessionId;
    this.#hosts = hosts;
  }

  async start(script: string): Promise<void> {
    // Chromium runs scripts to evaluate on new documents only for sessions with Page enabled.
    await Promise.all([
      this.#send('Page.enable'),
      this.#send('Runtime.enable'),
      this.#send('Runtime.addBinding', { name: BINDING }),
      this.#send('Page.addScriptToEvaluateOnNewDocument', { source: script }),
    ]);
  }

  receive(text: string): void {
    const message = JSON.parse(text) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
      method?: string;
      params?: Record<string, unknown>;
    };
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
        const context = params.context as { id: number; origin: string };
        this.#origins.set(context.id, context.origin);
        break;
      }
      case 'Runtime.executionContextDestroyed':
        this.#contextGone(params.executionContextId as number);
        break;
      case 'Runtime.executionContextsCleared':
        for (const id of [...this.#origins.keys()]) this.#contextGone(id);
        break;
      case 'Runtime.bindingCalled':
        if (params.name === BINDING) {
          this.#fromPage(params.executionContextId as number, String(params.payload));
        }
        break;
    }
  }

  /** Closes every socket of this page: the tab is gone or the bridge stops. */
  closeAll(): void {
    for (const socket of this.#sockets.values()) socket.terminate();
    this.#sockets.clear();
    for (const pending of this.#pending.values()) pending.reject(new Error('page detached'));
    this.#pending.clear();
  }

  #send<T = unknown>(method: string, params: object = {}): Promise<T> {
    const id = ++this.#lastId;
    const answer = new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    });
    this.#cdp
      .send('Target.sendMessageToTarget', {
        sessionId: this.#sessionId,
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
    this.#origins.delete(contextId);
    for (const [key, socket] of this.#sockets) {
      if (!key.startsWith(`${contextId}:`)) continue;
      this.#sockets.delete(key);
      if (socket.readyState === socket.OPEN) socket.close(1001);
      else socket.terminate();
    }
  }

  #toPage(contextId: number, event: Record<string, unknown>): void {
    this.#send('Runtime.evaluate', {
      expression: `globalThis[${JSON.stringify(DELIVER)}](${JSON.stringify(JSON.stringify(event))})`,
      contextId,
    }).catch((error: Error) => debug(`socket event not delivered: ${error.message}`));
  }

  #fromPage(contextId: number, payload: string): void {
    let message: PageMessage;
    try {
      message = JSON.parse(payload) as PageMessage;
    } catch {
      return;
    }
    const key = `${contextId}:${message.id}`;
    if (message.op === 'open') {
      void this.#open(contextId, key, message).catch((error: Error) => {
        debug(`bridged WebSocket not opened: ${error.message}`);
        this.#fail(contextId, message.id);
      });
      return;
    }
    const socket = this.#sockets.get(key);
    if (!socket) return;
    if (message.op === 'send') {
      if (socket.readyState !== socket.OPEN) return;
      if (message.base64 !== undefined) socket.send(Buffer.from(message.base64, 'base64'));
      else socket.send(message.text ?? '');
    } else if (message.op === 'close') {
      if (socket.readyState === socket.CONNECTING) {
        socket.terminate();
      } else if (message.code === undefined) {
        socket.close();
      } else {
        socket.close(message.code, message.reason);
      }
    }
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
    const origin = this.#origins.get(contextId);
    const target = new URL(message.url);
    const http = new URL(target.href);
    http.protocol = target.protocol === 'wss:' ? 'https:' : 'http:';
    if (
      origin === undefined ||
      !exposedOrigin(this.#hosts, origin) ||
      (target.protocol !== 'ws:' && target.protocol !== 'wss:') ||
      !this.#hosts.matches(http)
    ) {
      debug(`refused WebSocket ${target.origin}: its page ${origin ?? '(unknown)'} is not exposed`);
      this.#fail(contextId, message.id);
      return;
    }
    const { cookies } = await this.#send<{
      cookies: { name: string; value: string; path: string }[];
    }>('Network.getCookies', { urls: [http.href] });
    const headers: Record<string, string> = {};
    if (cookies.length > 0) {
      // As a browser orders them: longer paths first.
      cookies.sort((a, b) => b.path.length - a.path.length);
      headers.cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    }
    const { default: WebSocket } = await import('ws');
    if (!this.#origins.has(contextId)) return; // the page went away meanwhile
    const socket = new WebSocket(target.href, message.protocols, { origin, headers });
    this.#sockets.set(key, socket);
    const id = message.id;
    socket.on('open', () =>
      this.#toPage(contextId, {
        id,
        type: 'open',
        protocol: socket.protocol,
        extensions: socket.extensions,
      }),
    );
    socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      const bytes = Array.isArray(data)
        ? Buffer.concat(data)
        : Buffer.isBuffer(data)
          ? data
          : Buffer.from(data);
      this.#toPage(
        contextId,
        isBinary
          ? { id, type: 'message', base64: bytes.toString('base64') }
          : { id, type: 'message', text: bytes.toString('utf8') },
      );
    });
    let failed = false;
    socket.on('error', (error) => {
      debug(`bridged WebSocket ${target.origin}: ${error.message}`);
      failed = true;
      this.#toPage(contextId, { id, type: 'error' });
    });
    socket.on('close', (code, reason) => {
      if (this.#sockets.get(key) === socket) this.#sockets.delete(key);
      this.#toPage(contextId, {
        id,
        type: 'close',
        code,
        reason: reason.toString('utf8'),
        wasClean: !failed && code !== 1006,
      });
    });
  }
}

function exposedOrigin(hosts: ExposedHosts, origin: string): boolean {
  try {
    return hosts.matches(new URL(origin));
  } catch {
    return false; // an opaque origin (`null`), or anything else that is no URL
  }
}

/**
 * The page script, after Playwright's `routeWebSocket()` mock (packages/injected/src/webSocketMock.ts):
 * `WebSocket` becomes a class that is the native `WebSocket` for every URL but those of exposed
 * hosts, and a socket over the binding for those. Plain JavaScript text (not a bundled function),
 * so the build cannot rename or wrap what runs in the page.
 *
 * Page → Node (the binding, one JSON string): `{ op: 'open', id, url, protocols }`,
 * `{ op: 'send', id, text }` / `{ op: 'send', id, base64 }`, `{ op: 'close', id, code, reason }`.
 * Node → page (`globalThis[DELIVER](json)`): `open` (protocol, extensions), `message` (text or
 * base64), `error`, `close` (code, reason, wasClean).
 */
// The exposed hosts' http(s) URL patterns come in as RegExp sources.
function webSocketPageScript(patternSources: string[]): string {
  return `(() => {
const binding = globalThis[${JSON.stringify(BINDING)}];
if (typeof binding !== 'function' || globalThis[${JSON.stringify(DELIVER)}]) return;
delete globalThis[${JSON.stringify(BINDING)}];
const patterns = ${JSON.stringify(patternSources)}.map((s) => new RegExp(s));
const NativeWebSocket = globalThis.WebSocket;
const sockets = new Map();
let lastId = 0;
const toBase64 = (bytes) => {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(text);
};
const fromBase64 = (base64) => {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
};
const post = (message) => binding(JSON.stringify(message));
class WebSocket extends EventTarget {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;
  static [Symbol.hasInstance](value) {
    return value instanceof NativeWebSocket || (Object(value) === value && #id in value);
  }
  CONNECTING = 0;
  OPEN = 1;
  CLOSING = 2;
  CLOSED = 3;
  #id;
  #url;
  #readyState = 0;
  #protocol = '';
  #extensions = '';
  #binaryType = 'blob';
  #queue = Promise.resolve();
  constructor(url, protocols) {
    const parsed = new URL(url, location.href);
    if (parsed.protocol === 'http:') parsed.protocol = 'ws:';
    if (parsed.protocol === 'https:') parsed.protocol = 'wss:';
    const http = new URL(parsed.href);
    http.protocol = parsed.protocol === 'wss:' ? 'https:' : 'http:';
    if ((parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') || parsed.hash || !patterns.some((p) => p.test(http.href))) {
      return protocols === undefined ? new NativeWebSocket(url) : new NativeWebSocket(url, protocols);
    }
    super();
    this.#id = ++lastId;
    this.#url = parsed.href;
    sockets.set(this.#id, this);
    const list = protocols === undefined ? [] : typeof protocols === 'string' ? [protocols] : [...protocols];
    post({ op: 'open', id: this.#id, url: this.#url, protocols: list });
  }
  get url() { return this.#url; }
  get readyState() { return this.#readyState; }
  get protocol() { return this.#protocol; }
  get extensions() { return this.#extensions; }
  get bufferedAmount() { return 0; }
  get binaryType() { return this.#binaryType; }
  set binaryType(value) { if (value === 'blob' || value === 'arraybuffer') this.#binaryType = value; }
  send(data) {
    if (this.#readyState === 0) throw new DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError');
    if (this.#readyState !== 1) return;
    const id = this.#id;
    this.#queue = this.#queue.then(async () => {
      if (typeof data === 'string') return post({ op: 'send', id, text: data });
      let bytes;
      if (data instanceof Blob) bytes = new Uint8Array(await data.arrayBuffer());
      else if (ArrayBuffer.isView(data)) bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      else if (data instanceof ArrayBuffer) bytes = new Uint8Array(data);
      else return post({ op: 'send', id, text: String(data) });
      post({ op: 'send', id, base64: toBase64(bytes) });
    });
  }
  close(code, reason) {
    if (code !== undefined && code !== 1000 && !(code >= 3000 && code <= 4999)) {
      throw new DOMException("Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. " + code + ' is neither.', 'InvalidAccessError');
    }
    if (reason !== undefined && new TextEncoder().encode(reason).length > 123) {
      throw new DOMException("Failed to execute 'close' on 'WebSocket': The message must not be greater than 123 bytes.", 'SyntaxError');
    }
    if (this.#readyState >= 2) return;
    this.#readyState = 2;
    const id = this.#id;
    this.#queue = this.#queue.then(() => post({ op: 'close', id, code, reason }));
  }
  #fire(event) {
    this.dispatchEvent(event);
  }
  static deliver(message) {
    const socket = sockets.get(message.id);
    if (socket) socket.#on(message);
  }
  #on(message) {
    if (message.type === 'open') {
      if (this.#readyState !== 0) return;
      this.#readyState = 1;
      this.#protocol = message.protocol || '';
      this.#extensions = message.extensions || '';
      this.#fire(new Event('open'));
    } else if (message.type === 'message') {
      if (this.#readyState !== 1) return;
      let data = message.text;
      if (message.base64 !== undefined) {
        const bytes = fromBase64(message.base64);
        data = this.#binaryType === 'arraybuffer' ? bytes.buffer : new Blob([bytes]);
      }
      this.#fire(new MessageEvent('message', { data, origin: new URL(this.#url).origin }));
    } else if (message.type === 'error') {
      this.#fire(new Event('error'));
    } else if (message.type === 'close') {
      this.#readyState = 3;
      sockets.delete(this.#id);
      this.#fire(new CloseEvent('close', { code: message.code, reason: message.reason || '', wasClean: message.wasClean }));
    }
  }
}
for (const type of ['open', 'message', 'error', 'close']) {
  const handlers = new WeakMap();
  Object.defineProperty(WebSocket.prototype, 'on' + type, {
    configurable: true,
    enumerable: true,
    get() { return handlers.get(this) ?? null; },
    set(handler) {
      const old = handlers.get(this);
      if (old) this.removeEventListener(type, old);
      if (typeof handler === 'function') {
        handlers.set(this, handler);
        this.addEventListener(type, handler);
      } else handlers.delete(this);
    },
  });
}
Object.defineProperty(globalThis, ${JSON.stringify(DELIVER)}, { value: (json) => WebSocket.deliver(JSON.parse(json)) });
globalThis.WebSocket = WebSocket;
})();`;
}
