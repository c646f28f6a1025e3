/**
 * A session's exit: the only way out of its sandboxed Chromium, as the account's proxy is a real
 * session's. An HTTP proxy (node:http) on a unix socket in the session's work dir; Chromium
 * reaches it through `--proxy-server` and the sandbox's forwarder. It serves absolute-form
 * `http://` requests, `CONNECT` tunnels (https, ws and wss) and WebSocket upgrades, to the hosts
 * of the emulator's internet and to `exit.test`; every other host is refused (docs/emulator.md
 * says what a page sees). Requests to a published site carry `X-Forwarded-For: <exit ip>`.
 */
import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestOptions,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { createSecureContext, type SecureContext, TLSSocket } from 'node:tls';
import type { ExitIdentity } from '../runtime/types.js';
import { pipeBoth, responseHead } from '../server/raw-http.js';
import { exitAnswer } from './exit-answer.js';
import { EXIT_HOST, type Internet } from './internet.js';
import type { EmulatorCa, KeyPairPem } from './tls.js';

/** The certificate the exit shows for a published host's `https://`. */
export interface ExitTls {
  secureContextFor(host: string): Promise<SecureContext>;
}

/**
 * One leaf key for every host (its SPKI hash is what Chromium is told to accept), a certificate
 * per host from the emulator's CA, made on the first tunnel to that host.
 */
export function createExitTls(leafKey: KeyPairPem, ca: () => Promise<EmulatorCa>): ExitTls {
  const contexts = new Map<string, Promise<SecureContext>>();
  return {
    secureContextFor(host) {
      let context = contexts.get(host);
      if (!context) {
        context = ca().then(async (authority) =>
          createSecureContext({ key: leafKey.key, cert: await authority.issue([host], leafKey) }),
        );
        contexts.set(host, context);
      }
      return context;
    },
  };
}

export interface ExitProxyOptions {
  /** Unix socket path to listen on. */
  socketPath: string;
  internet: Internet;
  /** The session's exit identity on its `connection`-th connection (from 0). */
  identity(connection: number): ExitIdentity;
  tls: ExitTls;
}

export interface ExitProxy {
  close(): Promise<void>;
}

interface Destination {
  host: string;
  /** Path and query to ask the target for. */
  path: string;
  connection: number;
}

/** Hop-by-hop and proxy headers that must not reach the site. */
const DROPPED = new Set(['proxy-connection', 'proxy-authorization', 'keep-alive']);

export async function openExitProxy(options: ExitProxyOptions): Promise<ExitProxy> {
  const { internet } = options;
  const connectionOf = new WeakMap<object, number>();
  const tunnelOf = new WeakMap<object, { host: string; connection: number }>();
  const sockets = new Set<Duplex>();
  let connections = 0;

  const destination = (req: IncomingMessage): Destination | undefined => {
    const tunnel = tunnelOf.get(req.socket);
    if (tunnel) return { ...tunnel, path: req.url ?? '/' };
    const connection = connectionOf.get(req.socket) ?? 0;
    const url = URL.canParse(req.url ?? '') ? new URL(req.url ?? '') : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'ws:')) return undefined;
    return { host: url.hostname, path: `${url.pathname}${url.search}`, connection };
  };

  const outgoing = (req: IncomingMessage, to: Destination, site: URL): RequestOptions => {
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!DROPPED.has(name)) headers[name] = value;
    }
    headers['x-forwarded-for'] = options.identity(to.connection).ip;
    return {
      host: site.hostname.replace(/^\[|\]$/g, ''),
      port: site.port || (site.protocol === 'https:' ? 443 : 80),
      method: req.method,
      path: to.path,
      headers,
      // The target is the test's own server: a self-signed https target is accepted.
      ...(site.protocol === 'https:' ? { rejectUnauthorized: false } : {}),
    };
  };

  const send = (site: URL) => (site.protocol === 'https:' ? httpsRequest : httpRequest);

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const to = destination(req);
    if (to?.host === EXIT_HOST) {
      void exitAnswer(options.identity(to.connection)).then((answer) => {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(answer));
      });
      return;
    }
    const site = to && internet.lookup(to.host);
    if (!to || !site) {
      // No answer at all: the browser sees its connection closed, not a page of ours.
      req.socket.destroy();
      return;
    }
    const upstream = send(site)(outgoing(req, to, site), (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const to = destination(req);
    const site = to && internet.lookup(to.host);
    if (!to || !site) {
      socket.destroy();
      return;
    }
    const upstream = send(site)(outgoing(req, to, site));
    upstream.on('upgrade', (answer, upSocket: Socket, upHead: Buffer) => {
      socket.write(responseHead(answer.statusCode ?? 101, answer.rawHeaders, answer.statusMessage));
      if (upHead.length > 0) socket.write(upHead);
      if (head.length > 0) upSocket.write(head);
      pipeBoth(socket, upSocket);
    });
    upstream.on('response', (answer) => {
      // The site refused the upgrade: pass its answer on and close.
      socket.end(
        responseHead(answer.statusCode ?? 502, { 'content-length': '0' }, answer.statusMessage),
      );
      answer.resume();
    });
    upstream.on('error', () => socket.destroy());
    upstream.end();
  };

  // What arrives inside a CONNECT tunnel (https after TLS, or ws in the clear) is served here.
  const inner = createServer(onRequest);
  inner.on('upgrade', onUpgrade);

  const onConnect = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const connection = connectionOf.get(socket) ?? 0;
    const host = (req.url ?? '')
      .replace(/:\d+$/, '')
      .replace(/^\[|\]$/g, '')
      .toLowerCase();
    if (host !== EXIT_HOST && !internet.lookup(host)) {
      socket.end(responseHead(502, { 'content-length': '0' }));
      return;
    }
    socket.write(responseHead(200, {}, 'Connection Established'));
    if (head.length > 0) socket.unshift(head);
    // Read through the stream API (a wrapper), so the peeked first bytes are read again.
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      const stream = Duplex.from({ readable: socket, writable: socket });
      socket.on('close', () => stream.destroy());
      stream.on('error', () => socket.destroy());
      const tunnel = { host, connection };
      // A TLS ClientHello starts with 0x16: https and wss; anything else is ws in the clear.
      if (first[0] !== 0x16) {
        tunnelOf.set(stream, tunnel);
        inner.emit('connection', stream);
        return;
      }
      options.tls.secureContextFor(host).then(
        (secureContext) => {
          const secure = new TLSSocket(stream, { isServer: true, secureContext });
          secure.on('error', () => socket.destroy());
          tunnelOf.set(secure, tunnel);
          inner.emit('connection', secure);
        },
        () => socket.destroy(),
      );
    });
  };

  const server = createServer(onRequest);
  server.on('connection', (socket: Socket) => {
    connectionOf.set(socket, connections++);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // node:http drops its own 'error' listener when it hands a socket to 'connect' or 'upgrade':
    // a sandbox killed mid-tunnel (its forwarder's end resets) must end the socket, not the process.
    socket.on('error', () => socket.destroy());
  });
  server.on('upgrade', onUpgrade);
  server.on('connect', onConnect);
  server.listen(options.socketPath);
  await once(server, 'listening');
  let closing: Promise<void> | undefined;
  return {
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      return closing;
    },
  };
}
