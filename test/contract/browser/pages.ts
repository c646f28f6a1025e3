/**
 * The page the round trip drives. On the emulator it is served from a loopback node:http
 * server (its Chromium runs on this machine); the real service cannot reach this machine, so
 * there the same page is handed over as a data: URL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE_HTML);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/page.html`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

export const dataUrl = () => `data:text/html;base64,${Buffer.from(PAGE_HTML).toString('base64')}`;
