import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { setDebugSink } from '../../src/http/debug.js';
import {
  CdpClosedError,
  CdpConnection,
  CdpProtocolError,
  CdpTimeoutError,
} from '../../src/remote-cdp/cdp-connection.js';
import { FakeBrowser } from '../helpers/fake-cdp-browser.js';

let browser: FakeBrowser;
let url: string;
let opened: CdpConnection[];
let lines: string[];
let restoreSink: ReturnType<typeof setDebugSink>;
let debugEnv: string | undefined;

beforeEach(async () => {
  browser = new FakeBrowser();
  url = await browser.listen();
  opened = [];
  lines = [];
  restoreSink = setDebugSink((line) => lines.push(line));
  debugEnv = process.env.DEBUG;
  process.env.DEBUG = 'remote-browser:*';
});
afterEach(async () => {
  for (const connection of opened) connection.close();
  await browser.close();
  setDebugSink(restoreSink);
  if (debugEnv === undefined) delete process.env.DEBUG;
  else process.env.DEBUG = debugEnv;
});

async function open(options: Parameters<typeof CdpConnection.open>[1] = {}) {
  const connection = await CdpConnection.open(url, options);
  opened.push(connection);
  return connection;
}

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

describe('CdpConnection', () => {
  it('sends browser-level commands and resolves each with its own answer', async () => {
    browser.answer = (m) =>
      m.method === 'Browser.getVersion'
        ? { result: { product: 'Chrome/1', protocolVersion: '1.3' } }
        : { result: { targetId: `t-${String(m.params.url)}` } };
    const cdp = await open();
    const [version, created] = await Promise.all([
      cdp.send('Browser.getVersion'),
      cdp.send('Target.createTarget', { url: 'about:blank' }),
    ]);
    expect(version.product).toBe('Chrome/1');
    expect(created.targetId).toBe('t-about:blank');
    expect(browser.received.map((m) => [m.method, m.sessionId])).toEqual([
      ['Browser.getVersion', undefined],
      ['Target.createTarget', undefined],
    ]);
  });

  it('speaks to flat target sessions: commands carry the sessionId, a session sees only its events', async () => {
    browser.answer = (m) => ({ result: { frameId: `f-${m.sessionId}`, loaderId: 'l' } });
    const cdp = await open();
    const page = cdp.session('S1');
    const navigated = await page.send('Page.navigate', { url: 'http://a.test/' });
    expect(navigated.frameId).toBe('f-S1');
    expect(browser.received[0]).toMatchObject({ method: 'Page.navigate', sessionId: 'S1' });

    const onPage: string[] = [];
    const everywhere: (string | undefined)[] = [];
    page.on('Page.loadEventFired', (e) => onPage.push(`load ${e.timestamp}`));
    cdp.on('Page.loadEventFired', (_e, sessionId) => everywhere.push(sessionId));
    browser.emit('Page.loadEventFired', { timestamp: 1 }, 'S2');
    browser.emit('Page.loadEventFired', { timestamp: 2 }, 'S1');
    browser.emit('Page.loadEventFired', { timestamp: 3 });
    await tick();
    expect(onPage).toEqual(['load 2']);
    expect(everywhere).toEqual(['S2', 'S1', undefined]);
  });

  it('rejects an error answer with a CdpProtocolError naming the method and code', async () => {
    browser.answer = () => ({ error: { code: -32000, message: 'No target with given id' } });
    const cdp = await open();
    const failed = await cdp.send('Target.attachToTarget', { targetId: 'x' }).catch((e) => e);
    expect(failed).toBeInstanceOf(CdpProtocolError);
    expect(failed).toMatchObject({ method: 'Target.attachToTarget', code: -32000 });
    expect(failed.message).toBe('Target.attachToTarget: No target with given id');
  });

  it("times out a call after the connection's or the call's own timeout, and ignores its late answer", async () => {
    browser.answer = () => undefined;
    const cdp = await open({ timeoutMs: 50 });
    const started = Date.now();
    const timedOut = await cdp.send('Browser.getVersion').catch((e) => e);
    expect(timedOut).toBeInstanceOf(CdpTimeoutError);
    expect(timedOut.message).toBe('Browser.getVersion got no answer within 50 ms');
    expect(Date.now() - started).toBeLessThan(1_000);
    const own = await cdp
      .call('Page.enable', undefined, { sessionId: 'S', timeoutMs: 10 })
      .catch((e) => e);
    expect(own.message).toBe('Page.enable got no answer within 10 ms');
    // The late answers change nothing; the connection still works.
    browser.peer?.send(JSON.stringify({ id: 1, result: { product: 'late' } }));
    browser.answer = () => ({ result: { product: 'Chrome/2' } });
    expect((await cdp.send('Browser.getVersion')).product).toBe('Chrome/2');
  });

  it('without a timeout, a call waits for its answer', async () => {
    browser.answer = () => undefined;
    const cdp = await open();
    const pending = cdp.send('Browser.getVersion');
    await tick(100);
    browser.peer?.send(JSON.stringify({ id: 1, result: { product: 'slow' } }));
    expect((await pending).product).toBe('slow');
  });

  it('rejects every pending and later call with one stored reason when closed', async () => {
    browser.answer = () => undefined;
    const cdp = await open();
    let disconnected = 0;
    cdp.once('disconnected', () => disconnected++);
    const a = cdp.send('Browser.getVersion').catch((e) => e);
    const b = cdp
      .session('S')
      .send('Page.enable')
      .catch((e) => e);
    cdp.close();
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra).toBeInstanceOf(CdpClosedError);
    expect(ra).toBe(rb);
    expect(ra).toBe(cdp.closedReason);
    expect(await cdp.send('Browser.getVersion').catch((e) => e)).toBe(ra);
    cdp.close();
    expect(disconnected).toBe(1);
    let late = 0;
    cdp.once('disconnected', () => late++);
    expect(late).toBe(1);
  });

  it("ends with the other end's close: pending calls reject, 'disconnected' runs", async () => {
    browser.answer = () => undefined;
    const cdp = await open();
    const ended = new Promise<void>((resolve) => cdp.once('disconnected', resolve));
    const pending = cdp.send('Browser.getVersion').catch((e) => e);
    await tick();
    browser.peer?.close(1011);
    await ended;
    const reason = await pending;
    expect(reason).toBeInstanceOf(CdpClosedError);
    expect(reason.message).toBe('the CDP connection closed (1011)');
    expect(cdp.closedReason).toBe(reason);
  });

  it('lets no listener exception escape: a debug line, and the other listeners still run', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const cdp = await open();
      const seen: string[] = [];
      cdp.on('Runtime.bindingCalled', (e) => {
        (e.payload as unknown as { id: number }).id.toFixed();
        seen.push('first');
      });
      cdp.on('Runtime.bindingCalled', async () => {
        throw new Error('the target went away');
      });
      cdp.on('Runtime.bindingCalled', (e) => seen.push(`last ${e.name}`));
      browser.emit('Runtime.bindingCalled', { name: 'b', payload: null, executionContextId: 1 });
      await tick();
      expect(seen).toEqual(['last b']);
      const log = lines.join('\n');
      expect(log).toMatch(/Runtime\.bindingCalled handler failed: .*null/);
      expect(log).toMatch(/Runtime\.bindingCalled handler failed: the target went away/);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('drops messages that are not CDP and stays usable', async () => {
    const cdp = await open();
    browser.peer?.send('not json');
    browser.peer?.send('null');
    browser.peer?.send('[1,2]');
    browser.peer?.send(JSON.stringify({ id: 999, result: {} }));
    browser.answer = () => ({ result: { product: 'ok' } });
    expect((await cdp.send('Browser.getVersion')).product).toBe('ok');
    expect(lines.join('\n')).toMatch(/not JSON/);
  });

  it('opens on a socket the caller made, e.g. over a unix socket', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cdp-conn-'));
    const overSocket = new FakeBrowser();
    try {
      const path = join(dir, 'devtools.sock');
      await overSocket.listen(path);
      overSocket.answer = () => ({ result: { product: 'via socket' } });
      const ws = new WebSocket('ws://localhost/devtools/browser/y', {
        createConnection: () => connect({ path }),
      });
      const cdp = await CdpConnection.open(ws);
      opened.push(cdp);
      expect((await cdp.send('Browser.getVersion')).product).toBe('via socket');
      expect(overSocket.lastPath).toBe('/devtools/browser/y');
      // An already open socket is taken as it is.
      const again = await CdpConnection.open(ws);
      expect((await again.send('Browser.getVersion')).product).toBe('via socket');
    } finally {
      await overSocket.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('never names the URL (and its token) when the socket cannot be opened', async () => {
    const secret = 'tok-s3cr3t-value';
    const refusing = createServer((_req, res) => res.writeHead(401).end());
    refusing.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n'));
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const port = (refusing.address() as AddressInfo).port;
    try {
      const refused = await CdpConnection.open(
        `ws://127.0.0.1:${port}/cdp/s?token=${secret}`,
      ).catch((e) => e);
      expect(refused).toBeInstanceOf(CdpClosedError);
      expect(refused.message).toMatch(/could not open the CDP connection: .*401/);
      const bad = await CdpConnection.open(`not a url ${secret}`).catch((e) => e);
      expect(bad).toBeInstanceOf(CdpClosedError);
      for (const error of [refused, bad]) expect(String(error.stack)).not.toContain(secret);
    } finally {
      refusing.close();
    }
  });

  it('gives up on a socket that does not open in time', async () => {
    const silent = createServer();
    silent.on('upgrade', () => {}); // never answers the handshake
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const error = await CdpConnection.open(`ws://127.0.0.1:${port}/`, {
        openTimeoutMs: 100,
      }).catch((e) => e);
      expect(error).toBeInstanceOf(CdpTimeoutError);
      expect(error.message).toBe('the CDP connection did not open within 100 ms');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('serves as the CdpChannel of remote CDP: browser-level events only, off() and detach() stop them', async () => {
    browser.answer = (m) => ({ result: { echoed: m.method } });
    const cdp = await open();
    const channel = cdp.channel();
    expect(await channel.send('Target.setDiscoverTargets', { discover: true })).toEqual({
      echoed: 'Target.setDiscoverTargets',
    });
    const created: string[] = [];
    const destroyed: string[] = [];
    const onCreated = (e: { targetInfo: { targetId: string } }) =>
      created.push(e.targetInfo.targetId);
    const onDestroyed = (e: { targetId: string }) => destroyed.push(e.targetId);
    channel.on('Target.targetCreated', onCreated as (params: never) => void);
    channel.on('Target.targetDestroyed', onDestroyed as (params: never) => void);
    browser.emit('Target.targetCreated', { targetInfo: { targetId: 'browser-level' } });
    browser.emit('Target.targetCreated', { targetInfo: { targetId: 'from-a-session' } }, 'S1');
    await tick();
    expect(created).toEqual(['browser-level']);

    channel.off('Target.targetCreated', onCreated as (params: never) => void);
    browser.emit('Target.targetCreated', { targetInfo: { targetId: 'after-off' } });
    browser.emit('Target.targetDestroyed', { targetId: 'd1' });
    await tick();
    expect(created).toEqual(['browser-level']);
    expect(destroyed).toEqual(['d1']);

    await channel.detach();
    browser.emit('Target.targetDestroyed', { targetId: 'd2' });
    await tick();
    expect(destroyed).toEqual(['d1']);
    expect(cdp.closedReason).toBeUndefined();
  });

  it("brings every flat session's events, with their session, to onSessionEvent; stop() and detach() end that", async () => {
    const cdp = await open();
    const channel = cdp.channel();
    const seen: string[] = [];
    const stop = channel.onSessionEvent!((method, params, sessionId) => {
      if ((params as { boom?: boolean }).boom) throw new Error('a listener bug');
      seen.push(`${method} ${sessionId}`);
    });
    browser.emit('Runtime.bindingCalled', { name: 'b' }, 'S1');
    browser.emit('Runtime.bindingCalled', { boom: true }, 'S1'); // guarded: nothing escapes
    browser.emit('Target.targetCreated', { targetInfo: { targetId: 'browser-level' } });
    browser.emit('Page.loadEventFired', {}, 'S2');
    await tick();
    expect(seen).toEqual(['Runtime.bindingCalled S1', 'Page.loadEventFired S2']);
    stop();
    browser.emit('Page.loadEventFired', {}, 'S2');
    channel.onSessionEvent!((method) => seen.push(`again ${method}`));
    await channel.detach();
    browser.emit('Page.loadEventFired', {}, 'S2');
    await tick();
    expect(seen).toHaveLength(2);
  });

  it("sends a flat session's command through the channel with its sessionId (sendToSession)", async () => {
    browser.answer = (m) => ({ result: { echoed: m.method, to: m.sessionId } });
    const cdp = await open();
    const channel = cdp.channel();
    expect(await channel.sendToSession?.('W1', 'Runtime.runIfWaitingForDebugger')).toEqual({
      echoed: 'Runtime.runIfWaitingForDebugger',
      to: 'W1',
    });
    expect(browser.received.at(-1)).toMatchObject({ params: {}, sessionId: 'W1' });
  });
});
