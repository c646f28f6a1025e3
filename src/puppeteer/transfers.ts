/**
 * What a remote Puppeteer browser needs to move files between the client and the remote
 * machine, wired on a freshly connected browser: uploads send bytes (./uploads.ts) and, with
 * `downloadBehavior`, every download lands in the client's `downloadPath`
 * (remote-cdp/downloads.ts), named as Chromium names it.
 */
import type { Browser, CDPSession, DownloadBehavior } from 'puppeteer-core';
import { type CdpChannel, cdpChannel } from '../remote-cdp/cdp-channel.js';
import { RemoteDownloads } from '../remote-cdp/downloads.js';
import { remoteCdpFor } from '../remote-cdp/remote-cdp.js';
import { bridgeUploads } from './uploads.js';

const sessions = new WeakMap<Browser, CDPSession>();

/**
 * The browser-level session remote CDP runs on (remoteCdpFor's `open`), for every feature of
 * `browser`: uploads reach the connection through it.
 */
export async function openChannel(browser: Browser): Promise<CdpChannel> {
  const session = await browser.target().createCDPSession();
  sessions.set(browser, session);
  return cdpChannel(session);
}

/** Wires uploads and, with `downloadBehavior`, downloads on `browser`. */
export async function startTransfers(
  browser: Browser,
  downloadBehavior: DownloadBehavior | undefined,
  maxDownloadBytes?: number,
): Promise<void> {
  const cdp = await remoteCdpFor(browser, () => openChannel(browser));
  // Every session of the connection sends through the same Connection: the one remote CDP
  // opened leads to it, without a session of its own (a round trip).
  const connection = sessions.get(browser)?.connection();
  if (connection) bridgeUploads(connection);
  if (!downloadBehavior) return;
  const { policy, downloadPath } = downloadBehavior;
  const folder = downloadPath ?? '';
  const downloads = await RemoteDownloads.start(cdp, {
    policy,
    ...(maxDownloadBytes !== undefined ? { maxDownloadBytes } : {}),
    // Named as Chromium names it: by guid (`allowAndName`), else by the suggested name made
    // safe, `name (1).ext` when taken (remote-cdp/download-names.ts).
    placement: { folder, naming: policy === 'allowAndName' ? 'guid' : 'suggested' },
  });
  browser.once('disconnected', () => void downloads.close());
  await cdp.ready();
}
