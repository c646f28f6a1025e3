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
    const connection = ownSessionOf(target)?.connection();
    if (connection) return connection;
  }
  const session = await browser.target().createCDPSession();
  const connection = session.connection() as Connection;
  await session.detach().catch(() => {});
  return connection;
}

/** Puppeteer's own session of a target (internal in every Puppeteer we support: `_session()`). */
export function ownSessionOf(target: unknown): CDPSession | undefined {
  const internal = target as { _session?: () => CDPSession | undefined };
  return typeof internal._session === 'function' ? internal._session() : undefined;
}

/**
 * Wires uploads on the browser of `connection` (connectionOf()) and, with `downloads` (the
 * bridge openRemoteFeatures() started on the features' own connection), its downloads: they
 * end with the browser.
 */
export async function bridgeTransfers(
  connection: Promise<Connection>,
  downloads: Promise<RemoteDownloads | undefined>,
): Promise<void> {
  bridgeUploads(await connection);
  await downloads;
}
