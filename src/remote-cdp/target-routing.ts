/**
 * The target sessions of one browser-level session (target-session.ts): attaching them, and
 * routing the browser-level `Target.receivedMessageFromTarget` / `Target.detachedFromTarget` to
 * them by session id. RemoteCdp owns one.
 *
 * A session exists from the moment its attach is written, before the browser answers: its
 * commands can go out in the same write as the attach (see TargetSession for when). Attaches to
 * one target are made one after another (a second waits for the first's answer), so at most one
 * attach per target is in flight; a message from a session id not known yet (the browser's
 * answer and the session's first messages can be dispatched in either order) belongs to that one.
 */
import type { CdpSession } from './cdp-channel.js';
import { TargetSession, TargetSessionClosedError } from './target-session.js';

export class TargetRouting {
  readonly #cdp: CdpSession;
  /** Attached sessions by session id. */
  readonly #sessions = new Map<string, TargetSession>();
  /** By target id: the session whose attach is on the wire, not answered yet. */
  readonly #unanswered = new Map<string, TargetSession>();
  /** By target id: settles when the last attach to it is answered (the next one waits for it). */
  readonly #queue = new Map<string, Promise<void>>();
  /** Ended sessions: what they still send is dropped, never given to a newer session. */
  readonly #ended = new Set<string>();

  constructor(cdp: CdpSession) {
    this.#cdp = cdp;
  }

  /**
   * A session on `targetId`, usable at once; `attached` resolves once the browser answered and
   * rejects (the session closed with the same error) when it refused.
   */
  attach(targetId: string): { session: TargetSession; attached: Promise<void> } {
    const before = this.#queue.get(targetId);
    const early =
      before === undefined && ![...this.#sessions.values()].some((s) => s.targetId === targetId);
    const session = new TargetSession(targetId, {
      early,
      sendToTarget: (route, message) =>
        this.#cdp.send('Target.sendMessageToTarget', { ...route, message }),
      onDetach: async (sessionId) => {
        this.#forget(sessionId);
        await this.#cdp.send('Target.detachFromTarget', { sessionId });
      },
    });
    const write = () => {
      this.#unanswered.set(targetId, session);
      return this.#cdp.send('Target.attachToTarget', { targetId, flatten: false });
    };
    // No attach in flight: written now, so the session's first commands follow it in order.
    const answer = before === undefined ? write() : before.then(write);
    const attached = answer.then(
      ({ sessionId }) => this.#answered(session, sessionId),
      (error: unknown) => {
        const reason = error instanceof Error ? error : new Error(String(error));
        session.close(reason);
        throw reason;
      },
    );
    attached.catch(() => {});
    const settled = attached.then(
      () => {},
      () => {},
    );
    this.#queue.set(targetId, settled);
    void settled.then(() => {
      if (this.#unanswered.get(targetId) === session) this.#unanswered.delete(targetId);
      if (this.#queue.get(targetId) === settled) this.#queue.delete(targetId);
    });
    return { session, attached };
  }

  /**
   * The flat session `sessionId` the browser auto-attached to `targetId` (page-hold.ts), as a
   * session of ours: `sendFlat` sends its commands; `flatEvent()` brings its events.
   */
  adoptFlat(
    sessionId: string,
    targetId: string,
    sendFlat: (method: string, params: object) => Promise<unknown>,
  ): TargetSession {
    const session = new TargetSession(
      targetId,
      {
        sendFlat,
        onDetach: async (id) => {
          this.#forget(id);
          await this.#cdp.send('Target.detachFromTarget', { sessionId: id });
        },
      },
      sessionId,
    );
    this.#sessions.set(sessionId, session);
    return session;
  }

  /**
   * Whether `sessionId` on `targetId` is one of our own attaches, which Chromium reports with
   * `Target.attachedToTarget` too: known once the attaches to it in flight are answered.
   */
  async owns(sessionId: string, targetId: string): Promise<boolean> {
    await this.#queue.get(targetId);
    return this.#sessions.has(sessionId) || this.#ended.has(sessionId);
  }

  /** An event of the flat session `sessionId` (nothing when it is not one of ours). */
  flatEvent(sessionId: string, method: string, params: unknown): void {
    this.#sessions.get(sessionId)?.event(method, params);
  }

  /** A `Target.receivedMessageFromTarget` of the browser-level session. */
  receive(sessionId: string, targetId: string | undefined, message: string): void {
    this.#find(sessionId, targetId)?.receive(message);
  }

  /** A `Target.detachedFromTarget`: the session ends, its calls reject. */
  detached(sessionId: string, targetId: string | undefined): void {
    const session = this.#find(sessionId, targetId);
    this.#forget(sessionId);
    session?.close(
      new TargetSessionClosedError(`target ${targetId ?? session.targetId} went away`),
    );
  }

  /** Ends every session with `reason` (the browser-level session closed). */
  closeAll(reason: Error): void {
    for (const session of [...this.#sessions.values(), ...this.#unanswered.values()]) {
      session.close(reason);
    }
    this.#sessions.clear();
    this.#unanswered.clear();
  }

  #find(sessionId: string, targetId: string | undefined): TargetSession | undefined {
    const known = this.#sessions.get(sessionId);
    if (known || this.#ended.has(sessionId) || targetId === undefined) return known;
    const unanswered = this.#unanswered.get(targetId);
    if (!unanswered || unanswered.sessionId !== undefined || unanswered.closedReason) return;
    this.#sessions.set(sessionId, unanswered);
    unanswered.attached(sessionId);
    return unanswered;
  }

  #answered(session: TargetSession, sessionId: string): void {
    if (session.closedReason) {
      // Detached (or the browser session closed) before the browser answered: end it there too.
      this.#forget(sessionId);
      this.#cdp.send('Target.detachFromTarget', { sessionId }).catch(() => {});
      return;
    }
    this.#sessions.set(sessionId, session);
    session.attached(sessionId);
  }

  #forget(sessionId: string): void {
    this.#sessions.delete(sessionId);
    this.#ended.add(sessionId);
  }
}
