/** A tiny stand-in for the emulator server: routes `/cdp/...` to the proxy, checks tokens. */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCdpProxy } from '../../../src/emulator/runtime/index.js';
import type { CdpProxy, RunningBrowser } from '../../../src/emulator/runtime/types.js';

export interface ProxyServer {
  origin: string;
  proxy: CdpProxy;
  /** Makes a session reachable with a fresh token; returns it. */
  admit(browser: RunningBrowser, onActivity?: () => void): string;
  close(): Promise<void>;
}

export async function startProxyServer(): Promise<ProxyServer> {
  const sessions = new Map<
    string,
    { browser: RunningBrowser; token: string; onActivity: () => void }
  >();
  let origin = '';
  const proxy = createCdpProxy({
    publicOrigin: () => origin,
    resolve: (sessionId, token) => {
      const session = sessions.get(sessionId);
      return session && session.token === token ? session : undefined;
    },
    sessions: {
      running: (sessionId) => sessions.get(sessionId),
      anyRunning: () => [...sessions.values()].find((s) => !s.browser.hasEnded()),
    },
  });
  const server: Server = createServer((req, res) => {
    if (!proxy.handleHttp(req, res)) {
      res.writeHead(404).end();
    }
  });
  server.on('upgrade', (req, socket, head) => {
    if (!proxy.handleUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    proxy,
    admit(browser, onActivity = () => {}) {
      const token = `tok_${randomUUID()}`;
      sessions.set(browser.sessionId, { browser, token, onActivity });
      return token;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
