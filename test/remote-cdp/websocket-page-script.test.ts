/**
 * The page scripts as the page gets them (the source webSocketPageScripts() builds), run in a
 * fresh V8 context with a document and a location of their own. The e2e tests run them in
 * Chromium; these check what each world leaves behind and the message protocol.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { webSocketPageScripts } from '../../src/remote-cdp/websocket-page-script.js';

const config = {
  patterns: ['^https?://localhost(:\\d+)?/'],
  up: 'up-event',
  down: 'down-event',
  binding: 'theBinding',
};
const scripts = webSocketPageScripts(config);

class NativeWebSocket {
  constructor(readonly url: string) {}
}
class CloseEvent extends Event {
  readonly code: number;
  constructor(type: string, init: { code: number }) {
    super(type);
    this.code = init.code;
  }
}

/** A window at `href`: the globals the scripts use, and what the page's world can see. */
function windowAt(href: string, extra: Record<string, unknown> = {}) {
  const document = new EventTarget();
  const window: Record<string, unknown> = {
    location: new URL(href),
    document,
    WebSocket: NativeWebSocket,
    EventTarget,
    Event,
    CustomEvent,
    MessageEvent,
    CloseEvent,
    DOMException,
    Blob,
    TextEncoder,
    URL,
    btoa,
    atob,
    ...extra,
  };
  window.globalThis = window;
  return { window, document, run: (source: string) => runInNewContext(source, window) };
}

describe('the page world script', () => {
  it('leaves a page that is not on an exposed host untouched', () => {
    const page = windowAt('http://evil.test/');
    const before = Object.keys(page.window);
    page.run(scripts.main);
    expect(page.window.WebSocket).toBe(NativeWebSocket);
    expect(Object.keys(page.window)).toEqual(before);
  });

  it('replaces WebSocket on an exposed page and adds nothing else to globalThis', () => {
    const page = windowAt('http://localhost:5173/');
    const before = Object.keys(page.window);
    page.run(scripts.main);
    expect(page.window.WebSocket).not.toBe(NativeWebSocket);
    expect(Object.keys(page.window)).toEqual(before);
    const statics = Object.getOwnPropertyNames(page.window.WebSocket as object);
    expect(
      statics.filter((name) => typeof (page.window.WebSocket as never)[name] === 'function'),
    ).toEqual([]);
  });

  it('speaks over DOM events: open, send and close go up, socket events come down', async () => {
    const page = windowAt('http://localhost:5173/');
    page.run(scripts.main);
    const up: unknown[] = [];
    page.document.addEventListener(config.up, (e) =>
      up.push(JSON.parse((e as CustomEvent).detail)),
    );
    const socket = page.run(`
      const ws = new WebSocket('/ws', 'proto');
      ws.onopen = () => { ws.send('hi'); ws.opened = true; };
      ws;`) as { readyState: number; opened?: boolean; close(): void; url: string };
    expect(up).toEqual([
      { op: 'open', id: 1, url: 'ws://localhost:5173/ws', protocols: ['proto'] },
    ]);
    expect(socket.readyState).toBe(0);
    const down = (m: object) =>
      page.document.dispatchEvent(new CustomEvent(config.down, { detail: JSON.stringify(m) }));
    down({ id: 1, type: 'open', protocol: 'proto', extensions: '' });
    expect(socket.readyState).toBe(1);
    expect(socket.opened).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0)); // sends are queued in order
    expect(up).toContainEqual({ op: 'send', id: 1, text: 'hi' });
    // A socket to a host that is not exposed is the native one.
    expect(page.run(`new WebSocket('ws://evil.test/')`)).toBeInstanceOf(NativeWebSocket);
  });
});

describe('the isolated world script', () => {
  it('takes the binding off globalThis and relays the page world events to it', () => {
    const calls: string[] = [];
    const world = windowAt('http://localhost:5173/', { theBinding: (p: string) => calls.push(p) });
    world.run(scripts.isolated);
    expect(world.window.theBinding).toBeUndefined();
    world.document.dispatchEvent(new CustomEvent(config.up, { detail: '{"op":"close","id":1}' }));
    expect(calls).toEqual(['{"op":"close","id":1}']);
  });

  it('in a document that is not exposed, deletes the binding and relays nothing', () => {
    const calls: string[] = [];
    const world = windowAt('http://evil.test/', { theBinding: (p: string) => calls.push(p) });
    world.run(scripts.isolated);
    expect(world.window.theBinding).toBeUndefined();
    world.document.dispatchEvent(new CustomEvent(config.up, { detail: 'null' }));
    expect(calls).toEqual([]);
  });
});
