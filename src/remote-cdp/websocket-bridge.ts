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
 * iframes then get them at document start. A popup navigates as soon as the library lets it
 * run, before the scripts reach it, so its first document is not bridged; workers and
 * out-of-process iframes are not either (docs/remote.md).
 *
 * The page session is remote CDP's one target session (target-session.ts): non-flat, since
 * Playwright's `newBrowserCDPSession()` drops the messages of flattened child sessions.
 */
import { nodeCrypto } from '../http/node-builtins.js';
import { parseExposeNetwork } from './host-patterns.js';
import type { RemoteCdp, RemoteTarget } from './remote-cdp.js';
import { urlPatternRegex } from './url-pattern.js';
import { webSocketPageScripts } from './websocket-page-script.js';
import { PageSession } from './websocket-page-session.js';

/** The binding's name; it exists only in the bridge's isolated world (WORLD). */
const BINDING = '__remoteBrowserWebSocket';
/** The isolated world the binding lives in. */
const WORLD = 'remote-browser-websockets';

/** Starts bridging the WebSockets of exposed pages to this machine. */
export async function startWebSocketBridge(
  cdp: RemoteCdp,
  exposeNetwork: string,
): Promise<() => Promise<void>> {
  const hosts = parseExposeNetwork(exposeNetwork);
  if (hosts.empty) return async () => {};
  const nonce = nodeCrypto().randomUUID();
  const config = {
    patterns: hosts.fetchPatterns.map((p) => urlPatternRegex(p.urlPattern ?? '*').source),
    up: `remote-browser-ws-up-${nonce}`,
    down: `remote-browser-ws-down-${nonce}`,
    binding: BINDING,
  };
  const scripts = webSocketPageScripts(config);
  const pages = new Map<string, PageSession>();
  const attach = (target: RemoteTarget) => {
    if (target.type !== 'page' || pages.has(target.targetId)) return;
    const options = { hosts, world: WORLD, binding: BINDING, down: config.down, scripts };
    const page = new PageSession(cdp, target.targetId, options);
    pages.set(target.targetId, page);
    // Its session ended without the page (a reopened connection): the page's next
    // `targetCreated` attaches it again.
    void page.closed.then(() => {
      if (pages.get(target.targetId) === page) pages.delete(target.targetId);
    });
  };
  const unsubscribe = [
    cdp.on('Target.targetCreated', (e) => attach(e.targetInfo)),
    cdp.on('Target.targetDestroyed', (e) => pages.delete(e.targetId)),
  ];
  for (const target of cdp.targets.values()) attach(target);
  return async () => {
    for (const stop of unsubscribe) stop();
    const all = [...pages.values()];
    pages.clear();
    await Promise.all(all.map((page) => page.stop()));
  };
}
