/**
 * Pages held at their start, on a connection of our own (`speaksFlat`). A browser-level
 * `Target.setAutoAttach` with `waitForDebuggerOnStart` and `flatten` makes Chromium hold every
 * page created from then on (a popup, a tab of `newPage()`, a page of another context) until we
 * resume it: the holder's first commands, then `Runtime.runIfWaitingForDebugger`, go out on the
 * page's flat session in one write, so they are in place before the first script of its first
 * document. Measured (Chromium 156), a popup that keeps its opener starts at the FIRST resume of
 * any of its holders (held by us and never resumed, it loaded at once on Playwright's resume);
 * every other new page (a new tab, a `noopener` popup) waits for all of them. So where the
 * library holds the same pages for its own set-up, the resume of such a popup may wait for the
 * library (`resumeAfter`), at most RESUME_WAIT_MS; our scripts, sent at the attach, are in
 * before the library's resume, which comes after its own set-up.
 *
 * A page there already when the hold starts, or again after a reopen (the auto-attach is part of
 * the setup a reopened connection replays), is reported without the hold (`waiting` false).
 * Chromium reports every attach of ours that way too: those are told apart (ownsAttach) and left
 * alone. A held session no holder keeps is detached once the page is resumed.
 *
 * Playwright resumes a popup that keeps its opener itself (resumeAfterLibrary: ours waits out
 * RESUME_WAIT_MS). Puppeteer holds a new tab, not its page: it attaches the page under the tab
 * one round trip after we attach it, and sends geo's overrides on its session then
 * (src/puppeteer/geo.ts). Resumed by us at once, a Puppeteer popup sometimes read `en-US` at its
 * first script (1 to 2 of 10 runs). So its resume waits for Puppeteer's own attach of the page
 * (src/puppeteer/page-attaches.ts): a new page of Puppeteer starts that much later (a round
 * trip), an ordinary navigation pays nothing.
 */
import type { Protocol } from 'devtools-protocol';
import { createDebug } from '../http/debug.js';
import type { RemoteCdp, RemoteTarget } from './remote-cdp.js';
import type { TargetSession } from './target-session.js';

const debug = createDebug('remote-cdp');

/**
 * Given a page's flat session: sends its first commands at once (without awaiting them) and
 * says whether it keeps the session. `waiting`: the page is held until this returns.
 */
export type PageHolder = (
  target: RemoteTarget,
  session: TargetSession,
  waiting: boolean,
) => boolean;

const PAGES_ONLY: Protocol.Target.TargetFilter = [{ type: 'page' }, { exclude: true }];

/** The longest a held page waits for `resumeAfter` (a library that never attaches it). */
export const RESUME_WAIT_MS = 2_000;

/** What a held page's resume waits for (none: it is resumed at once). */
export type ResumeAfter = (target: RemoteTarget) => Promise<void> | undefined;

/**
 * For a library that holds the same new pages and resumes each once its own set-up is sent
 * (Playwright: the context's routes, extra headers, init scripts, bindings). A popup that keeps
 * its opener (`canAccessOpener`) would start at our resume, before that set-up: its resume is
 * left to the library (a wait that never settles, so ours comes RESUME_WAIT_MS later, for a page
 * the library does not resume). Resumed by us at once, 4 of 12 such popups on busy cores sent
 * their first request before Playwright's routes were in. Every other new page waits for all of
 * its holders, the library's set-up included, and is resumed at once: left to the library, its
 * first navigation waited out those 2 s.
 */
export const resumeAfterLibrary: ResumeAfter = (target) =>
  target.canAccessOpener ? new Promise<void>(() => {}) : undefined;

/**
 * Holds every page created from now on for `holder`; undefined when the connection has no flat
 * sessions (a library's own CDP session), where the caller attaches pages as they are announced.
 * Returns how to stop.
 */
export function holdNewPages(
  cdp: RemoteCdp,
  holder: PageHolder,
  resumeAfter?: ResumeAfter,
): (() => void) | undefined {
  if (!cdp.speaksFlat) return undefined;
  const hold = (e: Protocol.Target.AttachedToTargetEvent): void => {
    const waiting = e.waitingForDebugger;
    const session = cdp.adoptFlat(e.sessionId, e.targetInfo.targetId);
    // A popup that keeps its opener (`window.open()`) is reported on its opener's session.
    session.on('Target.attachedToTarget', onAttached);
    let kept = false;
    try {
      kept = holder(e.targetInfo, session, waiting);
    } finally {
      // Whatever the holder did, a held page must not stay paused.
      if (waiting) {
        const resume = () => {
          session
            .send('Runtime.runIfWaitingForDebugger')
            .catch((error: Error) =>
              debug(`page ${e.targetInfo.url} not resumed: ${error.message}`),
            );
          // A session not held may be someone else's on this connection (the CLI's): left alone.
          if (!kept) void session.detach();
        };
        const before = resumeAfter?.(e.targetInfo);
        if (before) void waitAtMost(before, RESUME_WAIT_MS).then(resume);
        else resume();
      }
    }
  };
  const onAttached = async (e: Protocol.Target.AttachedToTargetEvent): Promise<void> => {
    if (e.targetInfo.type !== 'page') return;
    if (e.waitingForDebugger) return hold(e);
    // Not held: a page there already, or the report of an attach of ours (never waiting).
    if (!(await cdp.ownsAttach(e.sessionId, e.targetInfo.targetId))) hold(e);
  };
  const unsubscribe = cdp.on('Target.attachedToTarget', onAttached);
  void cdp
    .setup({
      method: 'Target.setAutoAttach',
      params: { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: PAGES_ONLY },
    })
    .catch((error: Error) => debug(`pages are not held at their start: ${error.message}`));
  return () => {
    unsubscribe();
    // With nobody left to resume them, new pages must not be held (the connection may stay).
    void cdp
      .revert({
        method: 'Target.setAutoAttach',
        params: { autoAttach: false, waitForDebuggerOnStart: false },
      })
      .catch((error: Error) => debug(`the page hold was not turned off: ${error.message}`));
  };
}

/** Settles when `pending` settles (either way) or after `ms`, whichever comes first. */
function waitAtMost(pending: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([pending.then(noop, noop), timeout]).finally(() => clearTimeout(timer));
}

function noop(): void {}
