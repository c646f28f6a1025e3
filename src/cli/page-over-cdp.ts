/**
 * `screenshot`, `pdf` and `content` of a page on the user's own machine (a dev server on
 * `localhost:3000`): the service's REST page actions run in the remote browser, which cannot
 * reach the client's loopback (`net::ERR_EMPTY_RESPONSE`). For those URLs the CLI drives the
 * session's page itself over its `cdp_url`, with the library's tunnel (`exposeNetwork` at its
 * default `<loopback>`) serving the page's requests from this machine, as `launchRemote()` does.
 *
 * Loaded only when such an action runs: `--help` and every other command load none of it.
 */

import type { CdpSession } from '../remote-cdp/cdp-channel.js';
import { CdpConnection } from '../remote-cdp/cdp-connection.js';
import { DEFAULT_EXPOSE_NETWORK, parseExposeNetwork } from '../remote-cdp/host-patterns.js';
import { startRemoteFeatures } from '../remote-cdp/remote-features.js';
import { CliError } from './errors.js';

export type PageActionName = 'screenshot' | 'pdf' | 'content';

/** Longest wait for one CDP answer, and for a navigation's load event. */
const CDP_TIMEOUT_MS = 60_000;

// The doctype too, so `content` is a complete document (as the service's content action is).
const CONTENT_EXPRESSION = `(() => {
  const d = document.doctype;
  return (d ? new XMLSerializer().serializeToString(d) + '\\n' : '') + document.documentElement.outerHTML;
})()`;

/** Whether the remote browser reaches `url` only through the tunnel (the default `<loopback>` rule). */
export function isOnClientLoopback(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parseExposeNetwork(DEFAULT_EXPOSE_NETWORK).matches(parsed);
}

/**
 * Opens `url` in the session's page (a new one if it has none) through the tunnel and takes
 * `action`. `cdpUrl` is a secret: no error names it. Aborting `signal` (Ctrl-C) closes the
 * connection, which rejects whatever is pending.
 */
export async function takeOverCdp(
  cdpUrl: string,
  url: string,
  action: PageActionName,
  signal: AbortSignal,
): Promise<Buffer | string> {
  const cdp = await CdpConnection.open(cdpUrl, { timeoutMs: CDP_TIMEOUT_MS });
  const abort = () => cdp.close();
  signal.addEventListener('abort', abort, { once: true });
  if (signal.aborted) abort();
  try {
    await startRemoteFeatures(cdp, async () => cdp.channel(), {
      exposeNetwork: DEFAULT_EXPOSE_NETWORK,
    });
    const page = await openPage(cdp);
    await navigate(cdp, page, url);
    return await take(page, action);
  } finally {
    signal.removeEventListener('abort', abort);
    cdp.close();
  }
}

/** A flat session on the session's first page (or a new one), with load events on. */
async function openPage(cdp: CdpConnection): Promise<CdpSession> {
  const { targetInfos } = await cdp.send('Target.getTargets');
  let targetId = targetInfos.find((t) => t.type === 'page')?.targetId;
  if (!targetId) ({ targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' }));
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  const page = cdp.session(sessionId);
  await Promise.all([
    page.send('Page.enable'),
    page.send('Page.setLifecycleEventsEnabled', { enabled: true }),
  ]);
  return page;
}

/** Navigates and waits for the load event of the new document. */
async function navigate(cdp: CdpConnection, page: CdpSession, url: string): Promise<void> {
  // Load events from before Page.navigate answers count: a fast page can load first.
  const loaded = new Set<string>();
  let wake = () => {};
  const off = page.on('Page.lifecycleEvent', (e) => {
    if (e.name !== 'load') return;
    loaded.add(e.loaderId);
    wake();
  });
  try {
    const { loaderId, errorText } = await page.send('Page.navigate', { url });
    if (errorText) {
      throw new CliError(`navigate to ${url} failed: ${errorText}`, {
        code: 'navigation_failed',
        hint: 'is the server running on this machine? It is served to the remote browser from here',
      });
    }
    // No loaderId: a same-document navigation (#hash); nothing more loads.
    if (!loaderId || loaded.has(loaderId)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new CliError(`${url} did not load within ${CDP_TIMEOUT_MS / 1000} s`)),
        CDP_TIMEOUT_MS,
      );
      wake = () => {
        if (!loaded.has(loaderId)) return;
        clearTimeout(timer);
        resolve();
      };
      cdp.once('disconnected', () => {
        clearTimeout(timer);
        reject(cdp.closedReason);
      });
    });
  } finally {
    off();
  }
}

async function take(page: CdpSession, action: PageActionName): Promise<Buffer | string> {
  if (action === 'screenshot') {
    const { data } = await page.send('Page.captureScreenshot', { format: 'png' });
    return Buffer.from(data, 'base64');
  }
  if (action === 'pdf') {
    const { data } = await page.send('Page.printToPDF', { printBackground: true });
    return Buffer.from(data, 'base64');
  }
  const { result, exceptionDetails } = await page.send('Runtime.evaluate', {
    expression: CONTENT_EXPRESSION,
    returnByValue: true,
  });
  if (exceptionDetails) throw new CliError(`reading the page failed: ${exceptionDetails.text}`);
  return String(result.value);
}
