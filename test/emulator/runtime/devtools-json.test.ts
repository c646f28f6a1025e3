/**
 * Chrome's `/json` surface as the proxy serves it (devtools-json.ts), between two real HTTP
 * servers: one answering as Chromium's DevTools port does, and the proxy side under test. Every
 * websocket and frontend URL in an answer points at the proxy, Chrome's own statuses and other
 * bodies pass through, and a browser that does not answer is the emulator's 502.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevtoolsEndpoint } from '../../../src/emulator/runtime/devtools-endpoint.js';
import {
  devtoolsPathOf,
  queryWithoutToken,
  serveDevtoolsJson,
} from '../../../src/emulator/runtime/devtools-json.js';

const servers: Server[] = [];
const listen = async (server: Server) => {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
};
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

let chromium: DevtoolsEndpoint;
/** What "Chromium" received: method and path with query. */
const received: string[] = [];
let proxy = '';

beforeAll(async () => {
  const chromiumPort = await listen(
    createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      const at = `127.0.0.1:${chromiumPort}`;
      const page = {
        id: 'P1',
        type: 'page',
        url: 'about:blank',
        webSocketDebuggerUrl: `ws://${at}/devtools/page/P1`,
        devtoolsFrontendUrl: `/devtools/inspector.html?ws=${at}/devtools/page/P1`,
      };
      if (req.url === '/json/version') {
        res.end(
          JSON.stringify({
            Browser: 'Chrome/1',
            webSocketDebuggerUrl: `ws://${at}/devtools/browser/B1`,
          }),
        );
      } else if (req.url === '/json/list') {
        res.end(JSON.stringify([page]));
      } else if (req.url === '/json/protocol') {
        res.end('{"domains":[]}');
      } else if (req.url?.startsWith('/json/new')) {
        res.writeHead(req.method === 'PUT' ? 200 : 405);
        res.end(
          req.method === 'PUT'
            ? JSON.stringify(page)
            : 'Using unsafe HTTP verb GET to invoke /json/new.',
        );
      } else {
        res.writeHead(404);
        res.end('No such target id');
      }
    }),
  );
  chromium = { host: '127.0.0.1', port: chromiumPort };
  const proxyPort = await listen(
    createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const target: DevtoolsEndpoint =
        url.searchParams.get('gone') === '1' ? { host: '127.0.0.1', port: 1 } : chromium;
      void serveDevtoolsJson(
        res,
        target,
        { method: req.method ?? 'GET', path: url.pathname, query: queryWithoutToken(url.search) },
        (path) =>
          new URL(
            `wss://proxy.test/cdp/S1${path.startsWith('/devtools/page/') ? path : ''}?token=t`,
          ),
      );
    }),
  );
  proxy = `http://127.0.0.1:${proxyPort}`;
});

describe('serveDevtoolsJson', () => {
  it('points /json/version and /json/list at the proxy, frontend URL included', async () => {
    const version = await (await fetch(`${proxy}/json/version?token=secret`)).json();
    expect(version).toEqual({
      Browser: 'Chrome/1',
      webSocketDebuggerUrl: 'wss://proxy.test/cdp/S1?token=t',
    });
    const [page] = await (await fetch(`${proxy}/json/list`)).json();
    expect(page.webSocketDebuggerUrl).toBe('wss://proxy.test/cdp/S1/devtools/page/P1?token=t');
    expect(page.devtoolsFrontendUrl).toBe(
      `/devtools/inspector.html?wss=${encodeURIComponent('proxy.test/cdp/S1/devtools/page/P1?token=t')}`,
    );
    expect(JSON.stringify(page)).not.toContain(String((chromium as { port: number }).port));
  });

  it("passes Chrome's own statuses and other bodies through, and never forwards the token", async () => {
    const wrongVerb = await fetch(`${proxy}/json/new?about:blank`);
    expect(wrongVerb.status).toBe(405);
    expect(await wrongVerb.text()).toContain('unsafe HTTP verb');
    const created = await fetch(`${proxy}/json/new?token=secret&about:blank`, { method: 'PUT' });
    expect((await created.json()).webSocketDebuggerUrl).toContain('wss://proxy.test/');
    expect((await fetch(`${proxy}/json/close/nope`)).status).toBe(404);
    expect(await (await fetch(`${proxy}/json/protocol`)).text()).toBe('{"domains":[]}');
    const head = await fetch(`${proxy}/json/version`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(received).toContain('PUT /json/new?about:blank');
    expect(received.filter((line) => line.includes('secret'))).toEqual([]);
  });

  it('answers 502 in the emulator error shape when the browser does not answer', async () => {
    const gone = await fetch(`${proxy}/json/version?gone=1`);
    expect(gone.status).toBe(502);
    expect(await gone.json()).toEqual({ error: 'the session browser did not answer' });
  });
});

describe('devtoolsPathOf and queryWithoutToken', () => {
  it('takes /json and below (a trailing slash dropped), nothing else', () => {
    expect(devtoolsPathOf('/json')).toBe('/json');
    expect(devtoolsPathOf('/json/version/')).toBe('/json/version');
    expect(devtoolsPathOf('/jsonx')).toBeUndefined();
    expect(devtoolsPathOf('/devtools/browser/x')).toBeUndefined();
  });

  it('drops only the token pair and keeps the rest byte for byte', () => {
    expect(queryWithoutToken('?token=abc&about:blank')).toBe('about:blank');
    expect(queryWithoutToken('?https://a.test/?q=1%202&token=abc')).toBe('https://a.test/?q=1%202');
    expect(queryWithoutToken('')).toBe('');
  });
});
