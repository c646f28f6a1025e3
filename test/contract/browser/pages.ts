/**
 * The page the round trip drives. On the emulator it is served from a loopback node:http
 * server, published on the emulator's internet (its Chromium runs as on another machine); the
 * real service cannot reach this machine, so there the same page is handed over as a data: URL.
 */
import { startLoopbackSite } from '../../helpers/loopback-site.js';

export const MARKER = 'contract-marker-7f3a';

export const PAGE_HTML = `<!doctype html>
<html><head><title>contract page</title></head>
<body style="height: 6000px; margin: 0">
  <h1 id="marker">${MARKER}</h1>
  <input id="name" autocomplete="off">
  <button id="go" onclick="document.title = 'clicked'">go</button>
</body></html>`;

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

export async function servePage(): Promise<PageServer> {
  const site = await startLoopbackSite({}, { fallback: PAGE_HTML });
  return { url: site.url('/page.html'), close: site.close };
}

export const dataUrl = () => `data:text/html;base64,${Buffer.from(PAGE_HTML).toString('base64')}`;
