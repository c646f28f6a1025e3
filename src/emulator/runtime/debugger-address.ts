/**
 * The session's `debugger_address`: a loopback listener of its own, speaking Chromium's
 * remote-debugging surface (every `/json` endpoint, websocket upgrades) for that one session. It takes no token, as a real remote-debugging port does not (WebDriver-style clients
 * cannot add one): the unguessable port on loopback, open only while the control plane keeps it,
 * is the capability. Traffic counts as activity like the cdp_url's.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  foreignRequest,
  isLoopbackHost,
  type Listener,
  MALFORMED_TARGET,
  parseTarget,
} from '../server/own-origin.js';
import { refuseUpgrade } from '../server/raw-http.js';
import { sendError } from '../server/router.js';
import { devtoolsPathOf, serveDevtoolsJson } from './devtools-json.js';
import type { DebuggerAddress, SessionDirectory } from './types.js';
import { forwardUpgrade } from './upgrade-forward.js';

export async function openDebuggerAddress(
  sessionId: string,
  sessions: SessionDirectory,
): Promise<DebuggerAddress> {
  const sockets = new Set<Duplex>();
  let port = 0;
  // Its own loopback port, and any a latency front in front of it adds (`acceptPort`).
  const listener: Listener & { ports: number[] } = { boundHost: '127.0.0.1', ports: [] };
  /** The same Host/Origin rules as the emulator's origin: no rebinding page, no other site. */
  const admit = (req: IncomingMessage) => {
    const url = parseTarget(req.url);
    return url ? (foreignRequest(withOwnPort(req, port), listener) ?? url) : MALFORMED_TARGET;
  };
  const server = createServer((req, res) => {
    const url = admit(req);
    if (!(url instanceof URL)) return sendError(res, url.status, url.message);
    const entry = running(sessions, sessionId);
    const path = devtoolsPathOf(url.pathname);
    if (!entry) return sendError(res, 404, 'session not found or no longer running');
    if (!path) return sendError(res, 404, 'no such endpoint');
    entry.onActivity();
    // Same host as the request: the listener may be reached as 127.0.0.1 or localhost.
    const host = req.headers.host ?? address;
    const query = url.search.replace(/^\?/, '');
    void serveDevtoolsJson(
      res,
      entry.browser.chromiumAddress,
      { method: req.method ?? 'GET', path, query },
      (chromiumPath) => new URL(`ws://${host}${chromiumPath}`),
    );
  });
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    try {
      upgrade(req, socket, head);
    } catch {
      // No upgrade may take the emulator down: whatever failed, this socket gets a 400.
      refuseUpgrade(socket, 400, 'bad request');
    }
  });
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const url = admit(req);
    if (!(url instanceof URL)) return refuseUpgrade(socket, url.status, url.message);
    const entry = running(sessions, sessionId);
    if (!entry) return refuseUpgrade(socket, 404, 'session not found or no longer running');
    const path = url.pathname;
    const chromiumPath = /^\/devtools\/browser\/[^/]+$/.test(path)
      ? entry.browser.browserWsPath
      : /^\/devtools\/page\/[^/]+$/.test(path)
        ? path
        : undefined;
    if (!chromiumPath) return refuseUpgrade(socket, 404, 'no such endpoint');
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    forwardUpgrade(req, socket, head, {
      chromiumAddress: entry.browser.chromiumAddress,
      path: chromiumPath,
      onActivity: entry.onActivity,
    });
  };
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  listener.ports.push(port);
  const address = `127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    address,
    acceptPort: (front) => void listener.ports.push(front),
    cutClients: () => {
      const count = sockets.size;
      for (const socket of sockets) socket.destroy();
      return count;
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closing;
    },
  };
}

/**
 * chromedriver's WebSocket handshake sends `Host: 127.0.0.1`, without a port, and Chromium's
 * own remote-debugging port accepts it (it checks only that the Host is an IP literal or
 * `localhost`, its DNS-rebinding defence): a loopback Host without a port is taken as addressed
 * to this listener. A rebinding page sends its own DNS name, which is still refused, and the
 * Origin check is unchanged.
 */
function withOwnPort(req: IncomingMessage, port: number): IncomingMessage {
  const host = req.headers.host;
  if (host === undefined || !isLoopbackHost(host)) return req;
  return Object.create(req, { headers: { value: { ...req.headers, host: `${host}:${port}` } } });
}

/** The session while its browser runs: the control plane may still hold an ended one. */
function running(sessions: SessionDirectory, sessionId: string) {
  const entry = sessions.running(sessionId);
  return entry && !entry.browser.hasEnded() ? entry : undefined;
}
