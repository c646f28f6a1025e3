/**
 * WebSockets of the `exposeNetwork` tunnel. Chromium's `Fetch` domain does not see WebSockets,
 * so every tab gets the bridge's page scripts (websocket-page-script.ts): in a document of an
 * exposed host, `WebSocket` for URLs of exposed hosts becomes a socket that speaks to Node over a
 * CDP binding of an isolated world; Node opens the real socket from this machine
 * (websocket-page-session.ts, bridged-socket.ts).
 *
 * Timing: the scripts must be in place before the first script of the first document of a tab
 * on an exposed host. Chromium holds a session's commands to a page while a navigation of it is
 * in progress and hands them over after the commit, which is too late for that document. So the
 * bridge does not wait for an exposed navigation: it attaches to every page target as soon as it
 * exists (the session's own tab at start, a new page on `Target.targetCreated`) and sends the
 * attach and its scripts together, in one write and without waiting for an answer, so they
 * reach the tab before any navigation the user can start there (RemoteCdp.attach() writes a
 * session's first commands with the attach). Every later document of the tab
 * (a link, a redirect from the internet back to `localhost`, `page.goto`) and its same-process
 * iframes then get them at document start. A page created later (a popup, `newPage()`) would
 * navigate as soon as the library lets it run, before scripts sent on its announcement reach
 * it: with `holdPages` (both libraries' launches) on a connection of our own, Chromium holds
 * each one until the scripts are on its flat session (page-hold.ts), so a popup's first
 * document is bridged too. With Puppeteer the held page is resumed once Puppeteer has attached
 * it as well (resumeHeldPagesAfter(), src/puppeteer/page-attaches.ts): resumed before that, a
 * popup sometimes ran its first script before Puppeteer's own set-up of it (geo's overrides).
 * Its own session of the page cannot carry the scripts instead: Puppeteer holds a new tab, not
 * its page, and attaches the page once its navigation started, when Chromium hands the page a
 * session's commands only after the commit (measured: after the document loaded). On a
 * library's own CDP session (no flat sessions: the CLI) a new page is attached as it is
 * announced and a popup's first document is not bridged. Workers and out-of-process iframes
 * are not (docs/remote.md).
 *
 * The page session is remote CDP's one target session (target-session.ts): non-flat for the
 * tabs there at the start (written with the attach, no round trip), flat for a held page.
 */
import { nodeCrypto } from '../http/node-builtins.js';
import type { CdpCall } from './cdp-channel.js';
import type { ExposedHosts } from './host-patterns.js';
import { holdNewPages, type ResumeAfter } from './page-hold.js';
import type { RemoteCdp, RemoteTarget } from './remote-cdp.js';
import { urlPatternRegex } from './url-pattern.js';
import { webSocketPageScripts } from './websocket-page-script.js';
import { PageSession } from './websocket-page-session.js';

/** The binding's name; it exists only in the bridge's isolated world (WORLD). */
const BINDING = '__remoteBrowserWebSocket';
/** The isolated world the binding lives in. */
const WORLD = 'remote-browser-websockets';

/** The commands that put the bridge in a page: sent with the attach, before anything else. */
function setupOf(scripts: { main: string; isolated: string }): CdpCall[] {
  return [
    // Chromium runs scripts to evaluate on new documents only for sessions with Page enabled.
    { method: 'Page.enable' },
    { method: 'Runtime.enable' },
    { method: 'Runtime.addBinding', params: { name: BINDING, executionContextName: WORLD } },
    { method: 'Page.addScriptToEvaluateOnNewDocument', params: { source: scripts.main } },
    {
      method: 'Page.addScriptToEvaluateOnNewDocument',
      params: { source: scripts.isolated, worldName: WORLD },
    },
  ];
}

/** A running bridge (startWebSocketBridge()). */
export interface WebSocketBridge {
  /**
   * With `holdPages`: a page held from now on is resumed once what `wait` returns for it settles
   * (at most RESUME_WAIT_MS, page-hold.ts), or at once when it returns nothing: the library's
   * own setup of it goes out first.
   */
  resumeHeldPagesAfter(wait: ResumeAfter): void;
  /** Stops: every page's sockets close and its session ends. */
  stop(): Promise<void>;
}

/** Starts bridging the WebSockets of pages on `hosts` (not empty) to this machine. */
export async function startWebSocketBridge(
  cdp: RemoteCdp,
  hosts: ExposedHosts,
  holdPages = false,
): Promise<WebSocketBridge> {
  const nonce = nodeCrypto().randomUUID();
  const config = {
    patterns: hosts.fetchPatterns.map((p) => urlPatternRegex(p.urlPattern ?? '*').source),
    up: `remote-browser-ws-up-${nonce}`,
    down: `remote-browser-ws-down-${nonce}`,
    binding: BINDING,
  };
  const scripts = webSocketPageScripts(config);
  const pages = new Map<string, PageSession>();
  const options = {
    hosts,
    world: WORLD,
    binding: BINDING,
    down: config.down,
    setup: setupOf(scripts),
  };
  const track = (targetId: string, page: PageSession) => {
    pages.set(targetId, page);
    // Its session ended without the page (a reopened connection): the page is attached again
    // (announced again, or reported again by the hold).
    void page.closed.then(() => {
      if (pages.get(targetId) === page) pages.delete(targetId);
    });
  };
  const attach = (target: RemoteTarget) => {
    if (target.type !== 'page' || pages.has(target.targetId)) return;
    track(target.targetId, new PageSession(cdp, target.targetId, options));
  };
  for (const target of cdp.targets.values()) attach(target);
  // After the tabs there: their sessions (written with the attach) are in place, so the hold's
  // report of them is declined. A page not announced yet (the features start alongside the
  // library's connect, or after a reopen) comes from the hold, as does every page created from
  // now on, held until its scripts are in (page-hold.ts). On a library's own CDP session (no
  // flat sessions) pages are attached as they are announced.
  let wait: ResumeAfter | undefined;
  const held =
    holdPages &&
    holdNewPages(
      cdp,
      (target, session) => {
        if (pages.has(target.targetId)) return false;
        track(target.targetId, new PageSession(cdp, target.targetId, options, session));
        return true;
      },
      (target) => wait?.(target),
    );
  const unsubscribe = [
    held || cdp.on('Target.targetCreated', (e) => attach(e.targetInfo)),
    cdp.on('Target.targetDestroyed', (e) => pages.delete(e.targetId)),
  ];
  return {
    resumeHeldPagesAfter(next) {
      wait = next;
    },
    async stop() {
      for (const stop of unsubscribe) stop();
      const all = [...pages.values()];
      pages.clear();
      await Promise.all(all.map((page) => page.stop()));
    },
  };
}
