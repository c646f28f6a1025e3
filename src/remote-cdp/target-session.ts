/**
 * The one target-session abstraction of remote CDP: a session on one target of the browser
 * (a page, a popup, an out-of-process iframe, a worker), spoken through the browser-level
 * session, non-flat (`Target.attachToTarget` with `flatten: false`, then
 * `Target.sendMessageToTarget` / `Target.receivedMessageFromTarget`). Playwright's browser CDP
 * session drops the messages of flattened child sessions (its connection routes only sessions
 * it created), so this is the one way both libraries' sessions reach inside a target.
 *
 * Typed like the browser-level session (CdpSession). Events run behind the same dispatch
 * guard. When the target detaches, the browser-level session closes or `detach()` is called,
 * the session stores ONE reason and every pending and later call rejects with it.
 *
 * RemoteCdp.attach() creates these (it routes the messages of every session by id) and sends
 * the per-target setup contributions first (see remote-cdp.ts).
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

/** What a target session needs of the browser-level session: a way to send its messages. */
export type SendToTarget = (sessionId: string, message: string) => Promise<unknown>;

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

export class TargetSession implements CdpSession {
  readonly targetId: string;
  readonly sessionId: string;
  readonly #sendToTarget: SendToTarget;
  readonly #onDetach: () => Promise<void>;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Map<string, Set<(params: unknown) => void>>();
  #lastId = 0;
  #closed: Error | undefined;

  /** Made by RemoteCdp.attach(); `onDetach` ends the session in the browser. */
  constructor(
    targetId: string,
    sessionId: string,
    sendToTarget: SendToTarget,
    onDetach: () => Promise<void>,
  ) {
    this.targetId = targetId;
    this.sessionId = sessionId;
    this.#sendToTarget = sendToTarget;
    this.#onDetach = onDetach;
  }

  /** Why the session ended, or undefined while it is open. */
  get closedReason(): Error | undefined {
    return this.#closed;
  }

  send<M extends CdpCommand>(method: M, ...params: CdpParams<M>): Promise<CdpResult<M>> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = ++this.#lastId;
    return new Promise<CdpResult<M>>((resolve, reject) => {
      this.#pending.set(id, { method, resolve: resolve as (r: unknown) => void, reject });
      this.#sendToTarget(
        this.sessionId,
        JSON.stringify({ id, method, params: params[0] ?? {} }),
      ).catch((error: unknown) => {
        if (!this.#pending.delete(id)) return;
        reject(error instanceof Error ? error : new Error(String(error)));
      });
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
    this.close(new TargetSessionClosedError(`the session of target ${this.targetId} was detached`));
    await this.#onDetach().catch((error: unknown) => {
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
    if (typeof message.id === 'number') {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) {
        pending.reject(new Error(`${pending.method}: ${message.error.message ?? 'failed'}`));
      } else pending.resolve(message.result ?? {});
      return;
    }
    if (typeof message.method !== 'string') return;
    for (const listener of this.#listeners.get(message.method) ?? []) listener(message.params);
  }

  /** Ends the session with `reason`: every pending and later call rejects with it. */
  close(reason: Error): void {
    if (this.#closed) return;
    this.#closed = reason;
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
    this.#listeners.clear();
  }
}
