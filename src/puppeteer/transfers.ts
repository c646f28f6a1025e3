/**
 * What a remote Puppeteer browser needs to move files between the client and the remote
 * machine, wired on a freshly connected browser: uploads send bytes (./uploads.ts) and, with
 * `downloadBehavior`, every download lands in the client's `downloadPath`
 * (remote-cdp/downloads.ts), named as Chromium names it.
 */
import type { Browser, CDPSession, Connection, DownloadBehavior } from 'puppeteer-core';
import type { RemoteDownloads, RemoteDownloadsOptions } from '../remote-cdp/downloads.js';
import { bridgeUploads } from './uploads.js';

/** The download bridge's options for Puppeteer's `downloadBehavior` (none: no bridge). */
export function downloadOptions(
  downloadBehavior: DownloadBehavior | undefined,
  maxDownloadBytes?: number,
): RemoteDownloadsOptions | undefined {
  if (!downloadBehavior) return undefined;
  const { policy, downloadPath } = downloadBehavior;
  return {
    policy,
    ...(maxDownloadBytes !== undefined ? { maxDownloadBytes } : {}),
    // Named as Chromium names it: by guid (`allowAndName`), else by the suggested name made
    // safe, `name (1).ext` when taken (remote-cdp/download-names.ts).
    placement: {
      folder: downloadPath ?? '',
      naming: policy === 'allowAndName' ? 'guid' : 'suggested',
    },
  };
}

/**
 * Puppeteer's own Connection, which every session of the browser sends through: through a
 * target Puppeteer attached at its connect (internal in every Puppeteer we support:
 * `_session()`, as geo.ts reads it), else through a session of its own (one round trip).
 */
export async function connectionOf(browser: Browser): Promise<Connection> {
  for (const target of browser.targets()) {
    const internal = target as unknown as { _session?: () => CDPSession | undefined };
    const session = typeof internal._session === 'function' ? internal._session() : undefined;
    const connection = session?.connection();
    if (connection) return connection;
  }
  const session = await browser.target().createCDPSession();
  return session.connection() as Connection;
}

/**
 * Wires uploads on `browser` and, with `downloads` (the bridge openRemoteFeatures() started on
 * the features' own connection), its downloads: they end with the browser.
 */
export async function bridgeTransfers(
  browser: Browser,
  downloads: Promise<RemoteDownloads | undefined>,
): Promise<void> {
  bridgeUploads(await connectionOf(browser));
  await downloads;
}
