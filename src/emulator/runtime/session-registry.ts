/**
 * Running browsers by session id, for the parts of the runtime that cannot go through the
 * control plane's token resolver: the debugger address (tokenless: the address is the
 * capability), the proxy telling "unknown session" (404) from "bad token" (401), and the live
 * view learning when a session has ended. Session ids are random UUIDs, so several runtimes in
 * one process (tests) never collide.
 */
import type { RunningBrowser } from './types.js';

interface Entry {
  browser: RunningBrowser;
  /** The launch spec's idle-timer input, for traffic through the debugger address. */
  onActivity: () => void;
  ended: Promise<void>;
}

const sessions = new Map<string, Entry>();
const endedByBrowser = new WeakMap<RunningBrowser, Promise<void>>();
const endedBrowsers = new WeakSet<RunningBrowser>();

export function registerSession(entry: Entry): void {
  sessions.set(entry.browser.sessionId, entry);
  endedByBrowser.set(entry.browser, entry.ended);
  entry.ended.then(() => {
    endedBrowsers.add(entry.browser);
    if (sessions.get(entry.browser.sessionId) === entry) sessions.delete(entry.browser.sessionId);
  });
}

export function lookupSession(sessionId: string): Entry | undefined {
  return sessions.get(sessionId);
}

/** Some running session, for answers that are the same for every session (`/json/protocol`). */
export function anyRunningSession(): Entry | undefined {
  for (const entry of sessions.values()) if (!endedBrowsers.has(entry.browser)) return entry;
  return undefined;
}

/** Resolves when the browser's session ends (stop or crash); undefined for a foreign object. */
export function whenEnded(browser: RunningBrowser): Promise<void> | undefined {
  return endedByBrowser.get(browser);
}

/** Whether the browser's session has ended (a control plane may still hold the object). */
export function hasEnded(browser: RunningBrowser): boolean {
  return endedBrowsers.has(browser);
}
