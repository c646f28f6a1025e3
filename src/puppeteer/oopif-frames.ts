/**
 * Out-of-process iframes of pages Puppeteer sets up while they already run (popups): a repair
 * for a race in puppeteer-core's FrameManager (seen in 24.x), which otherwise leaves such a
 * frame without any execution context, so `frame.evaluate()`/`waitForFunction()` wait forever.
 *
 * Puppeteer resumes a popup at once and sets up its page (Page.enable, Page.getFrameTree) only
 * once the popup has a URL, i.e. while its document already runs. When that document has a
 * cross-site iframe, Chromium attaches the iframe's out-of-process target (for the navigation in
 * flight, before the frame swaps process) to Puppeteer's session of the popup. If Puppeteer
 * handles that attach before the popup's frame tree answered (a busy renderer, a loaded
 * machine), FrameManager.onAttachedToTarget() finds no frame to move to the new session; the
 * popup's frame tree then adds the frame (still local at that moment) under the POPUP's session,
 * and nothing moves it later: the iframe's own frame tree keeps the client only when it differs
 * from the parent's. Every execution context of the iframe's session is then dropped ("only
 * care about execution contexts created for the current session"). The same happens on a bare
 * `puppeteer.connect()`; it is not caused by this library's sessions.
 *
 * The repair: an iframe target's session that reports an execution context of its frame while
 * Puppeteer's frame of that id has another session gets the frame moved to it (what
 * onAttachedToTarget does when the frame is already known), and its contexts reported once more
 * (`Runtime.disable` + `Runtime.enable`), since Puppeteer dropped the first ones. Nothing is
 * sent in the usual order of events, where Puppeteer moved the frame itself.
 */
import type { Browser, CDPSession, Connection, Frame, Page, Target } from 'puppeteer-core';
import { createDebug } from '../http/debug.js';

const debug = createDebug('puppeteer');

/** What this needs of Puppeteer's frame: internal in every Puppeteer we support. */
interface FrameInternals {
  _id?: unknown;
  client?: unknown;
  updateClient?: (client: CDPSession) => void;
}

/** Puppeteer's target of a session (internal: `CdpCDPSession.target()`, which throws without one). */
function targetOf(session: CDPSession): Target | undefined {
  const target = (session as unknown as { target?: () => Target | undefined }).target;
  try {
    return target?.call(session);
  } catch {
    return undefined;
  }
}

/** The session `session` was auto-attached on (internal: `CdpCDPSession.parentSession()`). */
function parentOf(session: CDPSession): CDPSession | undefined {
  const parent = (session as unknown as { parentSession?: () => CDPSession | undefined })
    .parentSession;
  return typeof parent === 'function' ? parent.call(session) : undefined;
}

/**
 * The Page Puppeteer made for the page `session` belongs to (an iframe's session leads to its
 * page through its parents), without making one: a page nobody asked for yet is set up later,
 * after the swap, and then gets the iframe's frame from the iframe's session.
 */
async function pageOf(session: CDPSession | undefined): Promise<Page | undefined> {
  for (let at = session; at; at = parentOf(at)) {
    const target = targetOf(at);
    if (!target) return undefined;
    if (target.type() !== 'page') continue;
    const made = (target as unknown as { pagePromise?: Promise<Page | null> }).pagePromise;
    return (await made?.catch(() => null)) ?? undefined;
  }
  return undefined;
}

function frameById(page: Page, frameId: string): Frame | undefined {
  return page.frames().find((f) => (f as unknown as FrameInternals)._id === frameId);
}

/**
 * Watches `child`, the session Puppeteer got for the out-of-process iframe `frameId` under
 * `parent`, and moves the frame to it when Puppeteer left it on another session.
 */
function watchFrameSession(parent: CDPSession, child: CDPSession, frameId: string): void {
  let repairing = false;
  const repair = (frame: Frame) => {
    const internals = frame as unknown as FrameInternals;
    if (repairing || child.detached || internals.client === child) return;
    if (typeof internals.updateClient !== 'function') return;
    repairing = true;
    debug(`out-of-process frame ${frameId} was left on its parent's session: moved to its own`);
    internals.updateClient.call(frame, child);
    // Puppeteer dropped the contexts the session reported so far: it reports them again.
    void child
      .send('Runtime.disable')
      .then(() => child.send('Runtime.enable'))
      .catch((error: unknown) => {
        debug(`contexts of frame ${frameId} not reported again: ${(error as Error).message}`);
      })
      .finally(() => {
        repairing = false;
      });
  };
  child.on('Runtime.executionContextCreated', (event) => {
    const aux = event.context.auxData as { frameId?: unknown } | undefined;
    if (aux?.frameId !== frameId) return;
    void pageOf(parent).then((page) => {
      if (!page || child.detached) return;
      const frame = frameById(page, frameId);
      if (frame) {
        repair(frame);
        return;
      }
      // Not in the page's tree yet: the parent's frame tree may still add it (on its session).
      const attached = (added: Frame) => {
        if ((added as unknown as FrameInternals)._id !== frameId) return;
        stop();
        repair(added);
      };
      const detached = (session: CDPSession) => {
        if (session === child) stop();
      };
      const stop = () => {
        page.off('frameattached', attached);
        parent.off('sessiondetached', detached);
      };
      page.on('frameattached', attached);
      parent.on('sessiondetached', detached);
    });
  });
}

/** Puppeteer's own session of a target (internal in every Puppeteer we support: `_session()`). */
function ownSessionOf(target: Target): CDPSession | undefined {
  const internal = target as unknown as { _session?: () => CDPSession | undefined };
  return typeof internal._session === 'function' ? internal._session() : undefined;
}

/**
 * Follows the out-of-process iframes of every page of `browser` (see the module comment): the
 * sessions Puppeteer has now and each it attaches later.
 */
export async function repairOutOfProcessFrames(browser: Browser): Promise<void> {
  const sessions = browser.targets().flatMap((t) => ownSessionOf(t) ?? []);
  let connection: Connection | undefined = sessions[0]?.connection();
  if (!connection) {
    const session = await browser.target().createCDPSession();
    connection = session.connection();
    await session.detach().catch(() => {});
  }
  if (!connection) return;
  const known = connection;
  const follow = (parent: CDPSession) => {
    parent.on('Target.attachedToTarget', (event) => {
      if (event.targetInfo.type !== 'iframe') return;
      const child = known.session(event.sessionId);
      if (child) watchFrameSession(parent, child, event.targetInfo.targetId);
    });
  };
  for (const session of sessions) follow(session);
  known.on('sessionattached', follow);
}
