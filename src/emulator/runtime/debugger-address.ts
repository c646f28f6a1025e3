/**
 * The session's `debugger_address`: a loopback listener of its own, speaking Chromium's
 * remote-debugging surface (every `/json` endpoint, websocket upgrades) for that one session. It takes no token, as a real remote-debugging port does not (WebDriver-style clients
 * cannot add one): the unguessable port on loopback, open only while the control plane keeps it,
 * is the capability. Traffic counts as activity like the cdp_url's.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { devtoolsPathOf, sendJson, serveDevtoolsJson } from './devtools-json.js';
import type { SessionDirectory } from './types.js';
import { forwardUpgrade, refuseUpgrade } from './upgrade-forward.js';

export async function openDebuggerAddress(
  sessionId: string,
  sessions: SessionDirectory,
): Promise<{ address: string; close(): Promise<void>; cutClients(): number }> {
  const sockets = new Set<Duplex>();
  const server = createServer((req, res) => {
    const entry = running(sessions, sessionId);
    const url = new URL(req.url ?? '/', 'http://x');
    const path = devtoolsPathOf(url.pathname);
    if (!entry) return sendJson(res, 404, { error: 'session not found or no longer running' });
    if (!path) return sendJson(res, 404, { error: 'no such endpoint' });
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
    const entry = running(sessions, sessionId);
    if (!entry) return refuseUpgrade(socket, 404, 'session not found or no longer running');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
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
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;
  return {
    address,
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

/** The session while its browser runs: the control plane may still hold an ended one. */
function running(sessions: SessionDirectory, sessionId: string) {
  const entry = sessions.running(sessionId);
  return entry && !entry.browser.hasEnded() ? entry : undefined;
}
