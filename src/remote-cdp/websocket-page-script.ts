/**
 * The code the WebSocket bridge runs in a page, in two worlds of each new document of a tab
 * (websocket-bridge.ts registers both with `Page.addScriptToEvaluateOnNewDocument`):
 *
 * - **the page's own world** (webSocketMainWorld): `WebSocket` becomes a class that is the native
 *   `WebSocket` for every URL but those of exposed hosts, and a socket spoken over DOM events for
 *   those (after Playwright's `routeWebSocket()` mock, packages/injected/src/webSocketMock.ts).
 *   It adds nothing else to `globalThis`.
 * - **an isolated world** (webSocketIsolatedWorld), the only world that has the CDP binding
 *   (`Runtime.addBinding` with `executionContextName`): it forwards the page's requests to Node
 *   and Node's socket events (`Runtime.evaluate` in that world) back to the page. A page's own
 *   scripts never see the binding, and in a document that is not on an exposed host neither
 *   world does anything (the isolated one deletes its binding first).
 *
 * Both are plain functions, turned into source with `Function.prototype.toString()` (so they
 * must not use anything outside their own body; the build does not wrap them: tsup keeps names
 * off, and the e2e tests run the built source in Chromium). Page → Node (one JSON string):
 * `{ op: 'open', id, url, protocols }`, `{ op: 'send', id, text }` / `{ op: 'send', id, base64 }`,
 * `{ op: 'close', id, code, reason }`. Node → page: `open` (protocol, extensions), `message`
 * (text or base64), `error`, `close` (code, reason, wasClean).
 */

/** What both worlds are told: event names and the exposed hosts' http(s) URL patterns. */
export interface PageScriptConfig {
  /** RegExp sources of the exposed hosts' http(s) URLs. */
  patterns: string[];
  /** The DOM event the page world sends requests with (page → Node). */
  up: string;
  /** The DOM event the isolated world delivers socket events with (Node → page). */
  down: string;
  /** The CDP binding's name, in the isolated world only. */
  binding: string;
}

/** The two sources to register, each an expression statement that runs once per document. */
export function webSocketPageScripts(config: PageScriptConfig): {
  main: string;
  isolated: string;
} {
  const json = JSON.stringify(config);
  // A transpiler that keeps names (tsx, esbuild's keepNames: how bench/ and scripts run the
  // source) wraps inner functions in `__name(fn, 'name')`, a helper of the module the page
  // does not have: without this local stand-in the script throws at its first line there.
  const run = (fn: string) => `(() => { const __name = (f) => f; (${fn})(${json}); })();`;
  return {
    main: run(webSocketMainWorld.toString()),
    isolated: run(webSocketIsolatedWorld.toString()),
  };
}

/** The isolated world: the binding's only holder; a relay between the page's events and Node. */
export function webSocketIsolatedWorld(config: PageScriptConfig): void {
  const scope = globalThis as unknown as Record<string, unknown>;
  const binding = scope[config.binding];
  delete scope[config.binding];
  const exposed = config.patterns.some((source) => new RegExp(source).test(location.href));
  if (typeof binding !== 'function' || !exposed) return;
  document.addEventListener(config.up, (event) => {
    const detail: unknown = (event as CustomEvent).detail;
    if (typeof detail === 'string') (binding as (payload: string) => void)(detail);
  });
}

/** The page's own world: `WebSocket` for exposed URLs over the isolated world's relay. */
export function webSocketMainWorld(config: PageScriptConfig): void {
  const patterns = config.patterns.map((source) => new RegExp(source));
  const isExposed = (href: string) => patterns.some((pattern) => pattern.test(href));
  if (!isExposed(location.href)) return;
  // Playwright's routeWebSocket() mock ran first (the user routes this page's sockets): the
  // user's routing wins, so the bridge stays out of this document (docs/remote.md).
  if ('__pwWebSocketDispatch' in globalThis) return;
  const NativeWebSocket = globalThis.WebSocket;
  const NativeCustomEvent = CustomEvent;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const root = document;
  const sockets = new Map<number, BridgedWebSocket>();
  let lastId = 0;
  // Set by the class's static block: the one way in to a socket's private event handling.
  let deliver: (message: Down) => void = () => {};
  type Down = {
    id: number;
    type: string;
    protocol?: string;
    extensions?: string;
    text?: string;
    base64?: string;
    code?: number;
    reason?: string;
    wasClean?: boolean;
  };
  const post = (message: object) => {
    dispatch.call(root, new NativeCustomEvent(config.up, { detail: JSON.stringify(message) }));
  };
  const toBase64 = (bytes: Uint8Array) => {
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    return btoa(text);
  };
  const fromBase64 = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

  class BridgedWebSocket extends EventTarget {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSING = 2;
    static readonly CLOSED = 3;
    static override [Symbol.hasInstance](value: unknown): boolean {
      return (
        value instanceof NativeWebSocket || (Object(value) === value && #id in (value as object))
      );
    }
    readonly CONNECTING = 0;
    readonly OPEN = 1;
    readonly CLOSING = 2;
    readonly CLOSED = 3;
    #id = 0;
    #url = '';
    #readyState = 0;
    #protocol = '';
    #extensions = '';
    #binaryType: BinaryType = 'blob';
    #queue: Promise<void> = Promise.resolve();

    // biome-ignore lint/correctness/noUnreachableSuper: every other URL returns the native socket
    constructor(url: string | URL, protocols?: string | string[]) {
      const parsed = new URL(url, location.href);
      if (parsed.protocol === 'http:') parsed.protocol = 'ws:';
      if (parsed.protocol === 'https:') parsed.protocol = 'wss:';
      const http = new URL(parsed.href);
      http.protocol = parsed.protocol === 'wss:' ? 'https:' : 'http:';
      const bridged =
        (parsed.protocol === 'ws:' || parsed.protocol === 'wss:') &&
        !parsed.hash &&
        isExposed(http.href);
      if (!bridged) {
        // biome-ignore lint/correctness/noConstructorReturn: the native socket for every other URL, as Playwright's mock does
        return (protocols === undefined
          ? new NativeWebSocket(url)
          : new NativeWebSocket(url, protocols)) as unknown as BridgedWebSocket;
      }
      super();
      this.#id = ++lastId;
      this.#url = parsed.href;
      sockets.set(this.#id, this);
      const list =
        protocols === undefined ? [] : typeof protocols === 'string' ? [protocols] : [...protocols];
      post({ op: 'open', id: this.#id, url: this.#url, protocols: list });
    }
    get url() {
      return this.#url;
    }
    get readyState() {
      return this.#readyState;
    }
    get protocol() {
      return this.#protocol;
    }
    get extensions() {
      return this.#extensions;
    }
    get bufferedAmount() {
      return 0;
    }
    get binaryType() {
      return this.#binaryType;
    }
    set binaryType(value: BinaryType) {
      if (value === 'blob' || value === 'arraybuffer') this.#binaryType = value;
    }
    send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
      if (this.#readyState === 0) {
        throw new DOMException(
          "Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.",
          'InvalidStateError',
        );
      }
      if (this.#readyState !== 1) return;
      const id = this.#id;
      this.#queue = this.#queue.then(async () => {
        if (typeof data === 'string') return post({ op: 'send', id, text: data });
        let bytes: Uint8Array;
        if (data instanceof Blob) bytes = new Uint8Array(await data.arrayBuffer());
        else if (ArrayBuffer.isView(data)) {
          bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        } else bytes = new Uint8Array(data);
        post({ op: 'send', id, base64: toBase64(bytes) });
      });
    }
    close(code?: number, reason?: string): void {
      if (code !== undefined && code !== 1000 && !(code >= 3000 && code <= 4999)) {
        throw new DOMException(
          `Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. ${code} is neither.`,
          'InvalidAccessError',
        );
      }
      if (reason !== undefined && new TextEncoder().encode(reason).length > 123) {
        throw new DOMException(
          "Failed to execute 'close' on 'WebSocket': The message must not be greater than 123 bytes.",
          'SyntaxError',
        );
      }
      if (this.#readyState >= 2) return;
      this.#readyState = 2;
      const id = this.#id;
      this.#queue = this.#queue.then(() => post({ op: 'close', id, code, reason }));
    }
    static {
      deliver = (message) => {
        const socket = sockets.get(message.id);
        if (socket) socket.#on(message);
      };
    }
    #on(message: Down): void {
      if (message.type === 'open') {
        if (this.#readyState !== 0) return;
        this.#readyState = 1;
        this.#protocol = message.protocol ?? '';
        this.#extensions = message.extensions ?? '';
        this.dispatchEvent(new Event('open'));
      } else if (message.type === 'message') {
        if (this.#readyState !== 1) return;
        let data: string | ArrayBuffer | Blob = message.text ?? '';
        if (message.base64 !== undefined) {
          const bytes = fromBase64(message.base64);
          data = this.#binaryType === 'arraybuffer' ? bytes.buffer : new Blob([bytes]);
        }
        this.dispatchEvent(
          new MessageEvent('message', { data, origin: new URL(this.#url).origin }),
        );
      } else if (message.type === 'error') {
        this.dispatchEvent(new Event('error'));
      } else if (message.type === 'close') {
        this.#readyState = 3;
        sockets.delete(this.#id);
        const init = {
          code: message.code,
          reason: message.reason ?? '',
          wasClean: message.wasClean,
        };
        this.dispatchEvent(new CloseEvent('close', init));
      }
    }
  }
  for (const type of ['open', 'message', 'error', 'close']) {
    const handlers = new WeakMap<object, EventListener>();
    Object.defineProperty(BridgedWebSocket.prototype, `on${type}`, {
      configurable: true,
      enumerable: true,
      get(this: EventTarget) {
        return handlers.get(this) ?? null;
      },
      set(this: EventTarget, handler: unknown) {
        const old = handlers.get(this);
        if (old) this.removeEventListener(type, old);
        if (typeof handler === 'function') {
          handlers.set(this, handler as EventListener);
          this.addEventListener(type, handler as EventListener);
        } else handlers.delete(this);
      },
    });
  }
  root.addEventListener(config.down, (event) => {
    const detail: unknown = (event as CustomEvent).detail;
    if (typeof detail === 'string') deliver(JSON.parse(detail) as Down);
  });
  Object.defineProperty(BridgedWebSocket, 'name', { value: 'WebSocket' });
  globalThis.WebSocket = BridgedWebSocket as unknown as typeof WebSocket;
}
