import { keptSessionOf, sessionRunning, wasDropped } from '../launch/browser-registry.js';
import {
  createPool,
  type RemoteSessionPool,
  type SessionPoolOptions,
} from '../launch/session-pool.js';
import {
  connectRemote,
  launchRemote,
  type PuppeteerRemoteOptions,
  type RemoteBrowser,
} from './launch-remote.js';

export interface PuppeteerSessionPoolOptions extends PuppeteerRemoteOptions, SessionPoolOptions {}

/**
 * Keeps `size` sessions launched and connected, so `await pool.launch()` returns a native
 * Puppeteer `Browser` at once and the pool refills in the background. `browser.close()`
 * deletes its session as always; `await pool.close()` (or `await using pool = ...`) ends every
 * warm one. For crawlers that open one browser per job.
 */
export function createSessionPool(
  options: PuppeteerSessionPoolOptions = {},
): RemoteSessionPool<RemoteBrowser> {
  return createPool<RemoteBrowser, PuppeteerRemoteOptions>(options, launchRemote, {
    close: (browser) => browser.close(),
    isAlive: (browser) => browser.connected,
    dropped: (browser) => wasDropped(browser),
    stillRunning: (browser, timeoutMs) => sessionRunning(browser, timeoutMs),
    reattach: async (browser, options) => {
      const id = await keptSessionOf(browser);
      return id === undefined ? undefined : connectRemote(id, options);
    },
  });
}
