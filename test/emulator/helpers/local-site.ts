/** A tiny loopback website for e2e tests: a page with a form, a tall page, a cookie page. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const PAGE = `<!doctype html><html><head><title>Local test page</title></head>
<body style="height:5000px"><h1 id="title">Hello emulator</h1>
<input id="name"><button id="go" onclick="document.getElementById('title').textContent='clicked:'+document.getElementById('name').value">Go</button>
<canvas id="c" width="200" height="100"></canvas>
<script>let n=0;setInterval(()=>{const g=document.getElementById('c').getContext('2d');g.fillStyle='hsl('+(n++*37%360)+',80%,50%)';g.fillRect(0,0,200,100)},100)</script>
</body></html>`;

export interface LocalSite {
  origin: string;
  close(): Promise<void>;
}

export async function startLocalSite(): Promise<LocalSite> {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/set-cookie')) {
      res.writeHead(200, {
        'content-type': 'text/html',
        'set-cookie': 'remembered=yes; Max-Age=86400; Path=/',
      });
      res.end('<html><title>cookie set</title></html>');
      return;
    }
    if (req.url?.startsWith('/read-cookie')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<html><title>cookie</title><body id="cookie">${req.headers.cookie ?? ''}</body></html>`,
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
