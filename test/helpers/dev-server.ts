/**
 * The client's dev server of the exposeNetwork tests: a page with CSS, an image, a `fetch`
 * and a cookie login with a 302, on the client's loopback. Each request it receives is
 * recorded with whether the connection came from this test process (through the tunnel) or
 * from another process (Chromium reaching loopback itself, which a remote browser cannot).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';

/** A 1x1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export const DEV_PAGES: Record<
  string,
  (req: IncomingMessage, res: ServerResponse, body: string) => void
> = {
  '/': (_req, res) =>
    html(
      res,
      `<!doctype html><title>loading</title><link rel="stylesheet" href="/style.css">
<img id="img" src="/img.png"><h1>Dev</h1>
<script>fetch('/api/echo', { method: 'POST', body: 'ping' }).then(r => r.text()).then(t => { document.title = t; });</script>`,
    ),
  '/style.css': (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/css' }).end('h1 { color: rgb(1, 2, 3); }'),
  '/img.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
  '/api/echo': (req, res, body) =>
    res
      .writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' })
      .end(`${req.method} ${body}`),
  '/login': (_req, res) =>
    res
      .writeHead(302, {
        location: '/account',
        'set-cookie': ['sid=s3cret; HttpOnly; Path=/', 'theme=dark; Path=/'],
      })
      .end(),
  '/account': (req, res) =>
    html(
      res,
      `<!doctype html><title>${/sid=s3cret/.test(req.headers.cookie ?? '') ? 'signed in' : 'signed out'}</title>
<script>document.cookie = 'js=1; path=/'; window.visibleCookies = document.cookie;</script>`,
    ),
  '/sw.html': (_req, res) =>
    html(
      res,
      `<!doctype html><title>sw</title><script>
navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready);
</script>`,
    ),
  '/sw.js': (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(`
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  if (new URL(e.request.url).pathname === '/via-sw') {
    e.respondWith(fetch('/api/echo', { method: 'POST', body: 'from-sw' }));
  }
});`),
  '/events': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: one\n\n'); // and never ends
  },
  // Two sockets: one echoes text, binary and a Blob and is closed by the page with 4000; the
  // other is closed by the server with 4001. The result lands in `window.wsResult`.
  '/ws.html': (_req, res) =>
    html(
      res,
      `<!doctype html><title>ws</title><script>
const got = [];
const one = new WebSocket('ws://' + location.host + '/ws');
one.binaryType = 'arraybuffer';
one.onopen = () => { one.send('hello'); one.send(new Uint8Array([1, 2, 255])); one.send(new Blob(['blob'])); };
one.onmessage = (e) => {
  got.push(typeof e.data === 'string' ? e.data : 'bin:' + new Uint8Array(e.data).join(','));
  if (got.length === 4) one.close(4000, 'done');
};
one.onclose = (e) => {
  const two = new WebSocket('ws://' + location.host + '/ws');
  two.onopen = () => two.send('close-me');
  two.onclose = (f) => {
    window.wsResult = { got, first: [e.code, e.reason, e.wasClean], second: [f.code, f.reason, f.wasClean] };
    document.title = 'ws done';
  };
};
</script>`,
    ),
  '/whoami': (req, res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end(req.headers.cookie ?? ''),
};

function html(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(text);
}

export interface DevRequest {
  method: string;
  path: string;
  /** The connection was opened by this process (the client), not by Chromium. */
  fromClient: boolean;
}

export interface DevSocket {
  /** The upgrade request's `Cookie` and `Origin` headers. */
  cookie: string | undefined;
  origin: string | undefined;
  fromClient: boolean;
  /** What the page sent (binary as `bin:1,2,3`), and the close code and reason it sent. */
  received: string[];
  closedWith?: [number, string];
}

export interface DevServer {
  /** `http://localhost:<port>` */
  origin: string;
  port: number;
  readonly requests: DevRequest[];
  /** The WebSocket connections to `/ws`, which echoes each message with its type. */
  readonly sockets: DevSocket[];
  close(): Promise<void>;
}

export async function startDevServer(): Promise<DevServer> {
  const requests: DevRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] as string;
      requests.push({ method: req.method ?? '', path, fromClient: ownedByThisProcess(req.socket) });
      const page = DEV_PAGES[path];
      if (page) page(req, res, Buffer.concat(chunks).toString());
      else res.writeHead(404).end('not found');
    });
  });
  const sockets: DevSocket[] = [];
  const wss = new WebSocketServer({ server, path: '/ws' });
  wss.on('connection', (ws, req) => {
    const record: DevSocket = {
      cookie: req.headers.cookie,
      origin: req.headers.origin,
      fromClient: ownedByThisProcess(req.socket),
      received: [],
    };
    sockets.push(record);
    ws.send('welcome');
    ws.on('message', (data: Buffer, isBinary) => {
      record.received.push(isBinary ? `bin:${[...data].join(',')}` : data.toString());
      if (!isBinary && data.toString() === 'close-me') ws.close(4001, 'bye');
      else ws.send(data, { binary: isBinary });
    });
    ws.on('close', (code, reason) => {
      record.closedWith = [code, reason.toString()];
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://localhost:${port}`,
    port,
    requests,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Whether the peer end of `socket` (a loopback TCP connection) is a socket of this process:
 * the peer's inode from /proc/net/tcp among this process's open file descriptors.
 */
function ownedByThisProcess(socket: Socket): boolean {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  const peer = `:${hex(socket.remotePort ?? 0)}`;
  const local = `:${hex(socket.localPort ?? 0)}`;
  let inode: string | undefined;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(peer) && cols[2]?.endsWith(local)) inode = cols[9];
    }
  }
  if (inode === undefined) return false;
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === `socket:[${inode}]`;
    } catch {
      return false;
    }
  });
}
