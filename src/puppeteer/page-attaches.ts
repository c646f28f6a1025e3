/**
 * When Puppeteer has attached a target, for the features' page hold (remote-cdp/page-hold.ts):
 * a new page held there is resumed only once Puppeteer's own session of it exists, so what
 * Puppeteer's side sends on that session as it attaches (geo's overrides, sent at the
 * connection's `sessionattached`: src/puppeteer/geo.ts) is out before the page starts.
 *
 * Puppeteer attaches a new page under its tab: the page's session is made (`sessionattached`),
 * then the tab session's `Target.attachedToTarget` names its target. That event (and the
 * browser-level one, for a target that is no tab's) marks the target attached.
 */
import type { Protocol } from 'devtools-protocol';
import type { Browser, CDPSession, Connection } from 'puppeteer-core';
import type { RemoteFeatures } from '../remote-cdp/remote-features.js';

/** Puppeteer's attaches on one connection (watchAttaches()). */
export interface PuppeteerAttaches {
  /** Resolves once Puppeteer attached `targetId` (at once when it did already). */
  attached(targetId: string): Promise<void>;
  /** Stops listening; a pending attached() stays pending (the page hold caps its wait). */
  stop(): void;
}

export function watchAttaches(connection: Connection): PuppeteerAttaches {
  /** Target ids Puppeteer attached, by the session's id (forgotten when it detaches). */
  const targets = new Map<string, string>();
  const waiting = new Map<string, (() => void)[]>();
  const onAttached = (e: Protocol.Target.AttachedToTargetEvent) => {
    const { targetId } = e.targetInfo;
    targets.set(e.sessionId, targetId);
    for (const resolve of waiting.get(targetId) ?? []) resolve();
    waiting.delete(targetId);
  };
  const watched = new Set<CDPSession>();
  const watch = (session: CDPSession) => {
    watched.add(session);
    session.on('Target.attachedToTarget', onAttached);
  };
  const unwatch = (session: CDPSession) => {
    session.off('Target.attachedToTarget', onAttached);
    watched.delete(session);
    targets.delete(session.id());
  };
  connection.on('sessionattached', watch);
  connection.on('sessiondetached', unwatch);
  connection.on('Target.attachedToTarget', onAttached);
  return {
    attached(targetId) {
      if ([...targets.values()].includes(targetId)) return Promise.resolve();
      return new Promise((resolve) => {
        const list = waiting.get(targetId) ?? [];
        list.push(resolve);
        waiting.set(targetId, list);
      });
    },
    stop() {
      connection.off('sessionattached', watch);
      connection.off('sessiondetached', unwatch);
      connection.off('Target.attachedToTarget', onAttached);
      for (const session of watched) session.off('Target.attachedToTarget', onAttached);
      watched.clear();
      targets.clear();
      waiting.clear();
    },
  };
}

/**
 * The WebSocket bridge's held pages (features opened with `holdNewPages`) are resumed once
 * Puppeteer attached them (on its `connection`, connectionOf()), until `browser` disconnects.
 */
export async function resumeAfterPuppeteer(
  browser: Browser,
  connection: Promise<Connection>,
  features: RemoteFeatures,
): Promise<void> {
  const bridge = await features.bridge;
  if (!bridge) return;
  const attaches = watchAttaches(await connection);
  bridge.resumeHeldPagesAfter((target) => attaches.attached(target.targetId));
  browser.once('disconnected', () => attaches.stop());
}
