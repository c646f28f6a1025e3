import type { Browser } from 'playwright-core';
import type { RemoteSessionPool, SessionPoolOptions } from '../launch/pool-options.js';
import { type PlaywrightRemoteOptions, playwrightEntries } from './launch-remote.js';

export interface PlaywrightSessionPoolOptions extends PlaywrightRemoteOptions, SessionPoolOptions {}

/**
 * Keeps `size` sessions launched and connected, so `await pool.launch()` returns a native
 * Playwright `Browser` at once and the pool refills in the background. `browser.close()`
 * deletes its session as always; `await pool.close()` (or `await using pool = ...`) ends every
 * warm one. For crawlers and scripts that open one browser per job.
 */
export function createSessionPool(
  options: PlaywrightSessionPoolOptions = {},
): RemoteSessionPool<Browser> {
  return playwrightEntries.createSessionPool(options);
}
