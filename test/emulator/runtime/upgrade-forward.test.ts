/**
 * The websocket pass-through to Chromium (upgrade-forward.ts), between real sockets: a `ws`
 * client, a node:http server that forwards its upgrade, and a `ws` server in Chromium's place.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { DevtoolsEndpoint } from '../../../src/emulator/runtime/devtools-endpoint.js';
import { forwardUpgrade } from '../../../src/emulator/runtime/upgrade-forward.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A `ws` server where Chromium's DevTools port would be; records each upgrade it accepted. */
async function fakeChromium(): Promise<{
  endpoint: DevtoolsEndpoint;
  upgrades: IncomingMessage[];
}> {
  const upgrades: IncomingMessage[] = [];
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  wss.on('connection', (socket, req) => {
    upgrades.push(req);
    socket.on('message', (data) => socket.send(`echo:${String(data)}`));
  });
  await new Promise((r) => wss.once('listening', r));
  closers.push(() => new Promise((r) => wss.close(r)));
  const { port } = wss.address() as AddressInfo;
  return { endpoint: { host: '127.0.0.1', port }, upgrades };
}

/** A server forwarding every upgrade to `endpoint` at `/devtools/browser/B1`. */
async function forwarder(endpoint: DevtoolsEndpoint) {
  let activity = 0;
  const teardowns: (() => void)[] = [];
  const server: Server = createServer();
  server.on('upgrade', (req, socket, head) => {
    teardowns.push(
      forwardUpgrade(req, socket, head, {
        chromiumAddress: endpoint,
        path: '/devtools/browser/B1',
        onActivity: () => activity++,
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `ws://127.0.0.1:${port}/cdp/S1?token=secret`, activity: () => activity, teardowns };
}

const opened = (ws: WebSocket) =>
  new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });

describe('forwardUpgrade', () => {
  it("relays frames both ways on Chromium's path and Host, and counts the traffic as activity", async () => {
    const chromium = await fakeChromium();
    const front = await forwarder(chromium.endpoint);
    const ws = new WebSocket(front.url);
    await opened(ws);
    const reply = new Promise<string>((r) => ws.once('message', (data) => r(String(data))));
    ws.send('Browser.getVersion');
    expect(await reply).toBe('echo:Browser.getVersion');
    const [upgrade] = chromium.upgrades;
    expect(upgrade?.url).toBe('/devtools/browser/B1');
    expect(upgrade?.headers.host).toBe(`127.0.0.1:${(chromium.endpoint as { port: number }).port}`);
    expect(front.activity()).toBeGreaterThan(0);
    ws.close();
  });

  it('refuses the upgrade with a 502 saying so when Chromium is not reachable', async () => {
    const front = await forwarder({ host: '127.0.0.1', port: 1 });
    const ws = new WebSocket(front.url);
    const refused = await new Promise<{ status: number; body: string }>((resolve) => {
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
    });
    expect(refused.status).toBe(502);
    expect(JSON.parse(refused.body)).toEqual({ error: 'the session browser is not reachable' });
  });

  it('tears both sides down when asked, and when Chromium goes away', async () => {
    const chromium = await fakeChromium();
    const front = await forwarder(chromium.endpoint);
    const ws = new WebSocket(front.url);
    await opened(ws);
    const closed = new Promise((r) => ws.once('close', r));
    front.teardowns[0]?.();
    await closed;

    const again = new WebSocket(front.url);
    await opened(again);
    const closedAgain = new Promise((r) => again.once('close', r));
    for (const client of chromium.upgrades) {
      client.socket.destroy();
    }
    await closedAgain;
  });
});
