/**
 * The one target-session abstraction of remote CDP: a session on one target of the browser
 * (a page, a popup, an out-of-process iframe, a worker), spoken through the browser-level
 * session, non-flat (`Target.attachToTarget` with `flatten: false`, then
 * `Target.sendMessageToTarget` / `Target.receivedMessageFromTarget`). Playwright's browser CDP
 * session drops the messages of flattened child sessions (its connection routes only sessions
 * it created), so this is the one way both libraries' sessions reach inside a target, and the
 * one message loop for them in this folder.
 *
 * Typed like the browser-level session (CdpSession). Events run behind the same dispatch
 * guard. When the target detaches, the browser-level session closes or `detach()` is called,
 * the session stores ONE reason and every pending and later call rejects with it.
 *
 * A flat session the browser auto-attached (page-hold.ts) is one too: its commands go by session
 * id on the connection (`sendFlat`), its events come from the connection (`event()`).
 *
 * RemoteCdp.attach() creates these before the attach is answered, so a feature can listen and
 * send at once: until the session id is known, a command goes out addressed by target id when
 * this is the only session of ours on the target (Chromium refuses that address otherwise), and
 * waits for the attach otherwise. Chromium runs the commands in the order they arrive, so a
 * command written with the attach reaches the target before anything written after it.
 */
import { createDebug } from '../http/debug.js';
import {
  type CdpCommand,
  type CdpEvent,
  type CdpListener,
  type CdpParams,
  type CdpResult,
  type CdpSession,
  guardListener,
} from './cdp-channel.js';

const debug = createDebug('remote-cdp');

/** How a message reaches the target: by session id, or by target id while it has no other. */
export type TargetRoute = { sessionId: string } | { targetId: string };

/** What a target session needs of the browser-level session: a way to send its messages. */
export type SendToTarget = (route: TargetRoute, message: string) => Promise<unknown>;

/** A session's end: why its calls reject. */
export class TargetSessionClosedError extends Error {
  override name = 'TargetSessionClosedError';
}

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** One message from the target: a reply (`id`) or an event (`method`). */
interface TargetMessage {
  id?: number;
  result?: unknown;
  error?: { message?: string };
  method?: string;
  params?: unknown;
}

/** How a session's commands reach its target, and how it ends. */
export type TargetSessionOptions = {
  /** Ends the session in the browser (its id is known by then). */
  onDetach: (sessionId: string) => Promise<void>;
} & (
  | {
      /** A session inside the browser-level one: each message sent through it. */
      sendToTarget: SendToTarget;
      /** Whether commands may go out by target id before the attach is answered. */
      early: boolean;
    }
  | {
      /** A flat session: each command sent on the connection to this session, answered there. */
      sendFlat: (method: string, params: object) => Promise<unknown>;
    }
);

export class TargetSession implements CdpSession {
  readonly targetId: string;
  /** Settles with the session's end; never rejects. */
  readonly closed: Promise<Error>;
  readonly #options: TargetSessionOptions;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Map<string, Set<(params: unknown) => void>>();
  /** Messages waiting for the session id (when they may not go by target id). */
  readonly #waiting: { id: number; text: string }[] = [];
  #sessionId: string | undefined;
  #lastId = 0;
  #closed: Error | undefined;
  #endClosed: (reason: Error) => void = () => {};

  /** Made by RemoteCdp.attach(), before the attach is answered; a flat one with its `sessionId`. */
  constructor(targetId: string, options: TargetSessionOptions, sessionId?: string) {
    this.targetId = targetId;
    this.#options = options;
    this.#sessionId = sessionId;
    this.closed = new Promise((resolve) => {
      this.#endClosed = resolve;
    });
  }

  /** The session's id once the attach is answered. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Why the session ended, or undefined while it is open. */
  get closedReason(): Error | undefined {
    return this.#closed;
  }

  /** RemoteCdp: the attach answered with `sessionId`; waiting commands go out now. */
  attached(sessionId: string): void {
    const options = this.#options;
    if (this.#sessionId !== undefined || this.#closed || !('sendToTarget' in options)) return;
    this.#sessionId = sessionId;
    for (const { id, text } of this.#waiting.splice(0)) this.#write(options.sendToTarget, id, text);
  }

  send<M extends CdpCommand>(method: M, ...params: CdpParams<M>): Promise<CdpResult<M>> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = ++this.#lastId;
    return new Promise<CdpResult<M>>((resolve, reject) => {
      this.#pending.set(id, { method, resolve: resolve as (r: unknown) => void, reject });
      const options = this.#options;
      if ('sendFlat' in options) {
        options.sendFlat(method, params[0] ?? {}).then(
          (result) => this.#settle(id, result),
          (error: unknown) => this.#settle(id, undefined, error),
        );
        return;
      }
      const text = JSON.stringify({ id, method, params: params[0] ?? {} });
      if (this.#sessionId === undefined && !options.early) this.#waiting.push({ id, text });
      else this.#write(options.sendToTarget, id, text);
    });
  }

  on<E extends CdpEvent>(event: E, listener: CdpListener<E>): () => void {
    const guarded = guardListener(event, listener) as (params: unknown) => void;
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(guarded);
    return () => {
      this.#listeners.get(event)?.delete(guarded);
    };
  }

  /** Ends the session (idempotent): pending calls reject, the browser detaches it. */
  async detach(): Promise<void> {
    if (this.#closed) return;
    const sessionId = this.#sessionId;
    this.close(new TargetSessionClosedError(`the session of target ${this.targetId} was detached`));
    if (sessionId === undefined) return; // RemoteCdp detaches it when the attach answers
    await this.#options.onDetach(sessionId).catch((error: unknown) => {
      debug(`detaching target ${this.targetId} failed: ${(error as Error).message}`);
    });
  }

  /**
   * A message of `Target.receivedMessageFromTarget` for this session. Whatever it holds (the
   * target is another machine's renderer), nothing here throws.
   */
  receive(text: string): void {
    let message: TargetMessage;
    try {
      message = JSON.parse(text) as TargetMessage;
    } catch {
      debug(`target ${this.targetId} sent a message that is not JSON`);
      return;
    }
    if (message === null || typeof message !== 'object') return;
    if (typeof message.id === 'number') {
      const error = message.error;
      const method = this.#pending.get(message.id)?.method;
      if (error)
        this.#settle(message.id, undefined, new Error(`${method}: ${error.message ?? 'failed'}`));
      else this.#settle(message.id, message.result ?? {});
      return;
    }
    if (typeof message.method === 'string') this.event(message.method, message.params);
  }

  /** An event of this session (from `receive()`, or from the connection for a flat session). */
  event(method: string, params: unknown): void {
    for (const listener of this.#listeners.get(method) ?? []) listener(params);
  }

  /** Ends the session with `reason`: every pending and later call rejects with it. */
  close(reason: Error): void {
    if (this.#closed) return;
    this.#closed = reason;
    this.#waiting.length = 0;
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
    this.#listeners.clear();
    this.#endClosed(reason);
  }

  /** Answers call `id` (once, if still pending): with `result`, or rejects with `error`. */
  #settle(id: number, result: unknown, error?: unknown): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (error === undefined) pending.resolve(result);
    else pending.reject(error instanceof Error ? error : new Error(String(error)));
  }

  #write(sendToTarget: SendToTarget, id: number, text: string): void {
    const route: TargetRoute =
      this.#sessionId === undefined ? { targetId: this.targetId } : { sessionId: this.#sessionId };
    sendToTarget(route, text).catch((error: unknown) => this.#settle(id, undefined, error));
  }
}
