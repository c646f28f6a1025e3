/**
 * What a remote Puppeteer browser needs to move files between the client and the remote
 * machine, wired on a freshly connected browser: uploads send bytes (./uploads.ts) and, with
 * `downloadBehavior`, every download lands in the client's `downloadPath`
 * (remote-cdp/downloads.ts), named as Chromium names it.
 */
import type { Browser, CDPSession, DownloadBehavior } from 'puppeteer-core';
import { nodeFsPromises, nodePath } from '../http/node-builtins.js';
import { cdpChannel } from '../remote-cdp/cdp-channel.js';
import { type DownloadBegin, RemoteDownloads } from '../remote-cdp/downloads.js';
import { remoteCdpFor } from '../remote-cdp/remote-cdp.js';
import { bridgeUploads } from './uploads.js';

/** Wires uploads and, with `downloadBehavior`, downloads on `browser`. */
export async function startTransfers(
  browser: Browser,
  downloadBehavior: DownloadBehavior | undefined,
): Promise<void> {
  let own: CDPSession | undefined;
  const cdp = await remoteCdpFor(browser, async () => {
    own = await browser.target().createCDPSession();
    return cdpChannel(own);
  });
  // Every session of the connection sends through the same Connection: any session leads to it.
  const session = own ?? (await browser.target().createCDPSession());
  const connection = session.connection();
  if (session !== own) await session.detach().catch(() => {});
  if (connection) bridgeUploads(connection);
  if (!downloadBehavior) return;
  const { policy, downloadPath } = downloadBehavior;
  const folder = downloadPath ?? '';
  const downloads = await RemoteDownloads.start(cdp, {
    policy,
    placement: (begin) =>
      policy === 'allowAndName'
        ? Promise.resolve(nodePath().join(folder, begin.guid))
        : freeName(folder, begin),
  });
  browser.once('disconnected', () => void downloads.close());
}

const taken = new Set<string>();

/** `name.ext`, else `name (1).ext`, … as Chromium picks a name in a folder that has the first. */
async function freeName(folder: string, begin: DownloadBegin): Promise<string> {
  const name = begin.suggestedFilename || 'download';
  const ext = nodePath().extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 0; ; n++) {
    const candidate = nodePath().join(folder, n === 0 ? name : `${stem} (${n})${ext}`);
    if (taken.has(candidate)) continue;
    const exists = await nodeFsPromises()
      .access(candidate)
      .then(
        () => true,
        () => false,
      );
    if (exists) continue;
    taken.add(candidate);
    return candidate;
  }
}
