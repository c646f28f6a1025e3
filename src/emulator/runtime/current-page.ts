/**
 * Which page the session's page actions, screencast and recording follow: the first page target
 * (in creation order); when it closes, the next one. The runtime attaches its own flattened CDP
 * session to it, separate from any client's, so clients never see our traffic.
 */
import type { Protocol } from 'devtools-protocol';
import { type CdpConnection, CdpProtocolError } from '../../remote-cdp/cdp-connection.js';

type TargetInfo = Protocol.Target.TargetInfo;

export interface AttachedPage {
  targetId: string;
  /** Our flattened CDP session on that page. */
  sessionId: string;
}

export class CurrentPage {
  #cdp: CdpConnection;
  /** Page targets in creation order (Map keeps insertion order). */
  #pages = new Map<string, TargetInfo>();
  #current: AttachedPage | undefined;
  #attaching: Promise<AttachedPage> | undefined;
  #changeListeners = new Set<(page: AttachedPage | undefined) => void>();

  private constructor(cdp: CdpConnection) {
    this.#cdp = cdp;
    cdp.on('Target.targetCreated', ({ targetInfo }) => this.#upsert(targetInfo));
    cdp.on('Target.targetInfoChanged', ({ targetInfo }) => this.#upsert(targetInfo));
    cdp.on('Target.targetDestroyed', ({ targetId }) => this.#gone(targetId));
    cdp.on('Target.detachedFromTarget', ({ sessionId }) => {
      const current = this.#current;
      if (current && current.sessionId === sessionId) this.#gone(current.targetId);
    });
  }

  static async track(cdp: CdpConnection): Promise<CurrentPage> {
    const tracker = new CurrentPage(cdp);
    // Discovery replays existing targets as targetCreated before answering.
    await cdp.send('Target.setDiscoverTargets', { discover: true });
    return tracker;
  }

  /** Listens for a change of the attached current page (undefined: none right now). */
  onChange(listener: (page: AttachedPage | undefined) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  peek(): AttachedPage | undefined {
    return this.#current;
  }

  /**
   * The attached current page. With `create`, opens a blank page when the session has none (page
   * actions need one); without, resolves undefined (the screencast just waits for one).
   */
  async get(options: { create: boolean; timeoutMs?: number }): Promise<AttachedPage | undefined> {
    if (this.#current) return this.#current;
    if (this.#attaching) return this.#attaching;
    let targetId = this.#pages.keys().next().value as string | undefined;
    if (!targetId && !options.create) return undefined;
    const timeoutMs = options.timeoutMs;
    this.#attaching = (async () => {
      if (!targetId) {
        ({ targetId } = await this.#cdp.call(
          'Target.createTarget',
          { url: 'about:blank' },
          { timeoutMs },
        ));
      }
      let sessionId: string;
      try {
        ({ sessionId } = await this.#cdp.call(
          'Target.attachToTarget',
          { targetId, flatten: true },
          { timeoutMs },
        ));
      } catch (error) {
        // The page closed between its last event and our attach: forget it, try the next one.
        if (!(error instanceof CdpProtocolError) || !this.#pages.delete(targetId!)) throw error;
        this.#attaching = undefined;
        return (await this.get(options)) as AttachedPage;
      }
      // Lifecycle events let navigate() wait for the load of its own loaderId.
      await Promise.all([
        this.#cdp.call('Page.enable', undefined, { sessionId, timeoutMs }),
        this.#cdp.call(
          'Page.setLifecycleEventsEnabled',
          { enabled: true },
          { sessionId, timeoutMs },
        ),
      ]);
      const page = { targetId: targetId!, sessionId };
      this.#current = page;
      for (const listener of this.#changeListeners) listener(page);
      return page;
    })().finally(() => {
      this.#attaching = undefined;
    });
    return this.#attaching;
  }

  async list(): Promise<TargetInfo[]> {
    const { targetInfos } = await this.#cdp.send('Target.getTargets');
    return targetInfos.filter((t) => t.type === 'page');
  }

  #upsert(info: TargetInfo): void {
    if (info.type !== 'page') return;
    const known = this.#pages.has(info.targetId);
    this.#pages.set(info.targetId, info);
    // A page appearing while none is followed: let the screencast pick it up.
    if (!known && !this.#current && this.#changeListeners.size > 0) void this.#announce();
  }

  #gone(targetId: string): void {
    this.#pages.delete(targetId);
    if (this.#current?.targetId !== targetId) return;
    this.#current = undefined;
    for (const listener of this.#changeListeners) listener(undefined);
    if (this.#pages.size > 0) void this.#announce();
  }

  async #announce(): Promise<void> {
    try {
      await this.get({ create: false });
    } catch {
      // The page went away while we attached; the next target event tries again.
    }
  }
}
