import type { RemoteSessionPool, SessionPoolOptions } from '../launch/pool-options.js';
import {
  type PuppeteerRemoteOptions,
  puppeteerEntries,
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
  return puppeteerEntries.createSessionPool(options);
}
