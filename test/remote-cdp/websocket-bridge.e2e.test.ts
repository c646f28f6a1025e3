/**
 * The WebSocket bridge end to end: a dev server on the client's loopback, a real Chromium behind
 * the emulator's remote isolation (it cannot reach this machine's loopback: only the bridge
 * can), real playwright-core and puppeteer-core, defaults. The user's case first: one
 * `page.goto` of a dev server whose page opens its socket at once, in the session's own tab.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'puppeteer-core';
import { createServer as createViteServer, type ViteDevServer } from 'vite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { defaultPage, launchRemote } from '../../src/playwright/index.js';
import { launchRemote as launchPuppeteer } from '../../src/puppeteer/index.js';
import { DEV_PAGES, type DevServer, startDevServer } from '../helpers/dev-server.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { type LoopbackSite, startLoopbackSite } from '../helpers/loopback-site.js';

// BRIDGE_RTT_MS runs the file at a real network's round trip (every CDP frame delayed too):
// `BRIDGE_RTT_MS=100 npx vitest run --project e2e test/remote-cdp/websocket-bridge.e2e.test.ts`.
const env = useEmulatorAndSite({
  ffmpegPath: false,
  isolation: 'remote',
  network: { rttMs: Number(process.env.BRIDGE_RTT_MS ?? 0) },
});
let dev: DevServer;
let api: BrowserApi;
let internet: LoopbackSite;

const html = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) =>
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
// Pages of this file's dev server: an exposed page framing /ws.html, a cross-site page.
DEV_PAGES['/frame.html'] = html(
  '<!doctype html><title>frame</title><iframe src="/ws.html"></iframe>',
);
DEV_PAGES['/login-all'] = (_req, res) =>
  res
    .writeHead(302, {
      location: '/account',
      'set-cookie': [
        'lax=1; Path=/; SameSite=Lax',
        'strict=1; Path=/; SameSite=Strict',
        'plain=1; Path=/',
        'none=1; Path=/; SameSite=None; Secure',
      ],
    })
    .end();
DEV_PAGES['/cross.html'] = html(`<!doctype html><title>cross</title><script>
const ws = new WebSocket('ws://localhost:' + location.port + '/ws');
ws.onmessage = () => { document.title = 'cross open'; };
</script>`);

beforeEach(async () => {
  dev = await startDevServer();
  api = await env.newAccountApi();
  // A site of the internet: a link to the dev server, and a redirect to it.
  const target = `${dev.origin}/ws.html`;
  internet = await startLoopbackSite({
    '/': `<!doctype html><title>links</title><a id="link" href="${target}">same tab</a>
<a id="popup" href="${target}" target="_blank">popup</a>
<button id="open" onclick="window.open('${target}')">window.open</button>
`,
    '/redirect': (_req, res) => res.writeHead(302, { location: target }).end(),
  });
  await env.emu.admin.publish('links.test', internet.origin);
});
afterEach(async () => {
  await dev.close();
  await api.close();
  await internet.close();
});

const expected = {
  got: ['welcome', 'hello', 'bin:1,2,255', 'bin:98,108,111,98'],
  first: [4000, 'done', true],
  second: [4001, 'bye', true],
};
type Evaluator = { evaluate<T>(fn: () => T): Promise<T> };
const wsResult = (frame: Evaluator) =>
  frame.evaluate(() => (window as { wsResult?: unknown }).wsResult);
/** Both sockets of /ws.html went through the client, as the page's first document opened them. */
const expectBridged = async (frame: Evaluator) => {
  await expect.poll(() => wsResult(frame)).toEqual(expected);
  expect(dev.sockets.map((s) => s.fromClient)).toEqual([true, true]);
};

describe('WebSockets from the first document of a tab', () => {
  it("Playwright: one page.goto of a dev server in the session's own tab opens its sockets", async () => {
    const browser = await launchRemote({ api });
    try {
      const page = defaultPage(browser);
      await page.goto(`${dev.origin}/ws.html`);
      await expectBridged(page);
    } finally {
      await browser.close();
    }
  });

  it("Puppeteer: one page.goto of a dev server in the session's own tab opens its sockets", async () => {
    const browser = await launchPuppeteer({ api });
    try {
      const [page] = await browser.pages();
      await page!.goto(`${dev.origin}/ws.html`);
      await expectBridged(page!);
    } finally {
      await browser.close();
    }
  });

  it('Playwright: a new page, a link, a redirect from the internet and an iframe', async () => {
    const browser = await launchRemote({ api });
    try {
      const context = browser.contexts()[0]!;
      const fresh = await context.newPage();
      await fresh.goto(`${dev.origin}/ws.html`);
      await expectBridged(fresh);

      dev.sockets.length = 0;
      const linked = await context.newPage();
      await linked.goto('http://links.test/');
      await linked.click('#link');
      await expectBridged(linked);

      dev.sockets.length = 0;
      const redirected = await context.newPage();
      await redirected.goto('http://links.test/redirect');
      expect(redirected.url()).toBe(`${dev.origin}/ws.html`);
      await expectBridged(redirected);

      dev.sockets.length = 0;
      const framing = await context.newPage();
      await framing.goto(`${dev.origin}/frame.html`);
      await expect.poll(() => framing.frames().length).toBe(2);
      await expectBridged(framing.frames()[1]!);
    } finally {
      await browser.close();
    }
  });

  it('Puppeteer: a new page and a link from the internet', async () => {
    const browser = await launchPuppeteer({ api });
    try {
      const fresh = await browser.newPage();
      await fresh.goto(`${dev.origin}/ws.html`);
      await expectBridged(fresh);

      dev.sockets.length = 0;
      await fresh.goto('http://links.test/');
      await Promise.all([fresh.waitForNavigation(), fresh.click('#link')]);
      await expectBridged(fresh);
    } finally {
      await browser.close();
    }
  });
});

describe('WebSockets from the first document of a popup', () => {
  it('Playwright: a link to a dev server with target=_blank, and window.open()', async () => {
    const browser = await launchRemote({ api });
    try {
      const page = defaultPage(browser);
      await page.goto('http://links.test/');
      const [linked] = await Promise.all([page.waitForEvent('popup'), page.click('#popup')]);
      await expectBridged(linked);

      dev.sockets.length = 0;
      const [opened] = await Promise.all([page.waitForEvent('popup'), page.click('#open')]);
      await expectBridged(opened);
    } finally {
      await browser.close();
    }
  });

  it('Puppeteer: a link to a dev server with target=_blank, and window.open()', async () => {
    const browser = await launchPuppeteer({ api });
    try {
      const [page] = await browser.pages();
      await page!.goto('http://links.test/');
      const popup = () =>
        new Promise<Page>((resolve) => page!.once('popup', (p) => p && resolve(p)));
      const [linked] = await Promise.all([popup(), page!.click('#popup')]);
      await expectBridged(linked);

      dev.sockets.length = 0;
      // The popup took the focus: the opener's click needs it back (as with puppeteer.connect).
      await page!.bringToFront();
      const [opened] = await Promise.all([popup(), page!.click('#open')]);
      await expectBridged(opened);
    } finally {
      await browser.close();
    }
  });
});

describe('SameSite on bridged sockets', () => {
  it('sends SameSite=Strict, Lax and default cookies on a same-site socket and only SameSite=None ones on a cross-site one', async () => {
    const browser = await launchRemote({ api });
    try {
      const page = defaultPage(browser);
      await page.goto(`${dev.origin}/login-all`);
      // Same site: the page on localhost, the socket to localhost.
      await page.goto(`${dev.origin}/cross.html`);
      await expect.poll(() => page.title()).toBe('cross open');
      // Cross site: the page on 127.0.0.1, the socket to localhost.
      await page.goto(`http://127.0.0.1:${dev.port}/cross.html`);
      await expect.poll(() => page.title()).toBe('cross open');
      const cookies = dev.sockets.map((s) => s.cookie?.split('; ').sort() ?? []);
      // js=1 is set by the page's own script, without SameSite (Lax by default).
      expect(cookies).toEqual([['js=1', 'lax=1', 'none=1', 'plain=1', 'strict=1'], ['none=1']]);
      expect(dev.sockets.map((s) => s.origin)).toEqual([
        dev.origin,
        `http://127.0.0.1:${dev.port}`,
      ]);
    } finally {
      await browser.close();
    }
  });
});

describe('A web page cannot crash the client through the bridge', () => {
  const CHILD = fileURLToPath(new URL('../fixtures/hostile-page-child.ts', import.meta.url));

  /** Runs the user's script on the hostile page; resolves with its exit code and output. */
  const runChild = async (lib: 'playwright' | 'puppeteer', url: string) => {
    const account = await env.emu.admin.createAccount({});
    const proc = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: {
        ...process.env,
        CHILD_LIB: lib,
        CHILD_URL: url,
        REMOTE_BROWSER_URL: env.emu.url,
        REMOTE_BROWSER_TOKEN: account.token,
        REMOTE_BROWSER_PROXY_PASSWORD: account.proxyPassword,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    proc.stdout.on('data', (c: Buffer) => (output += c));
    proc.stderr.on('data', (c: Buffer) => (output += c));
    const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
    return { code, output };
  };

  for (const lib of ['playwright', 'puppeteer'] as const) {
    it(`${lib}: a page that cancels its navigation to an exposed host and calls the binding leaves the process running`, async () => {
      // An exposed host that answers 204: the navigation never commits, the page stays.
      const nothing = createServer((_req, res) => res.writeHead(204).end());
      await new Promise<void>((resolve) => nothing.listen(0, '127.0.0.1', resolve));
      const port = (nothing.address() as AddressInfo).port;
      const hostile = await startLoopbackSite({
        '/': `<!doctype html><title>hostile</title><script>
const tries = ['null', '{"id":null}', '{"op":"open"}', '[]', '"x"', '{"op":"send","id":1,"base64":5}'];
addEventListener('load', () => setTimeout(() => {
location.href = 'http://localhost:${port}/';
let waited = 0;
const poll = setInterval(() => {
  const binding = globalThis.__remoteBrowserWebSocket;
  if (typeof binding === 'function') {
    clearInterval(poll);
    for (const payload of tries) binding(payload);
    document.title = 'called';
  } else if ((waited += 50) > 4000) {
    clearInterval(poll);
    document.title = 'none';
  }
}, 50);
}, 100));
</script>`,
      });
      await env.emu.admin.publish('hostile.test', hostile.origin);
      try {
        const { code, output } = await runChild(lib, 'http://hostile.test/');
        expect(output, output).toMatch(/survived (called|none)/);
        expect(code).toBe(0);
      } finally {
        await hostile.close();
        await new Promise((resolve) => nothing.close(resolve));
      }
    });
  }
});

describe('A real Vite dev server on the client', () => {
  let root: string;
  let vite: ViteDevServer;
  let origin: string;
  const message = (text: string) =>
    writeFile(
      join(root, 'message.js'),
      `export const message = '${text}';\ndocument.title = message;\nimport.meta.hot?.accept();\n`,
    );
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'rb-vite-'));
    await writeFile(
      join(root, 'index.html'),
      '<!doctype html><title>loading</title><script>window.loaded = (window.loaded ?? 0) + 1;</script><script type="module" src="/message.js"></script>',
    );
    await message('v1');
    vite = await createViteServer({
      root,
      configFile: false,
      logLevel: 'silent',
      server: { host: '127.0.0.1', port: 0 },
    });
    await vite.listen();
    origin = `http://localhost:${(vite.httpServer!.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await vite.close();
    await rm(root, { recursive: true, force: true });
  });

  type HmrPage = { title(): Promise<string>; evaluate<T>(fn: () => T): Promise<T> };
  /** The first load's HMR socket is up, and an edit on disk updates the page without a reload. */
  const expectHotUpdate = async (page: HmrPage) => {
    await expect.poll(() => page.title()).toBe('v1');
    // Vite's client says "[vite] connected." once its socket opened; wait for the socket.
    await expect
      .poll(() => page.evaluate(() => performance.getEntriesByType('resource').length))
      .toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await message('v2');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('v2');
    expect(await page.evaluate(() => (window as { loaded?: number }).loaded)).toBe(1);
  };

  it('Playwright: the first load connects its HMR socket and an edit hot-updates the page', async () => {
    const browser = await launchRemote({ api });
    try {
      const page = defaultPage(browser);
      await page.goto(`${origin}/`);
      await expectHotUpdate(page);
    } finally {
      await browser.close();
    }
  });

  it('Puppeteer: the first load connects its HMR socket and an edit hot-updates the page', async () => {
    const browser = await launchPuppeteer({ api });
    try {
      const [page] = await browser.pages();
      await page!.goto(`${origin}/`);
      await expectHotUpdate(page!);
    } finally {
      await browser.close();
    }
  });
});
