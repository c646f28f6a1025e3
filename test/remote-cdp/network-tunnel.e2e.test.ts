/**
 * exposeNetwork end to end: a dev server on the client's loopback, a real Chromium behind the
 * emulator's remote isolation (it cannot reach this machine's loopback: only the tunnel can),
 * real playwright-core and puppeteer-core. Each dev-server request also records whether it came
 * from this process (the tunnel).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { chromium, createSessionPool, launchRemote } from '../../src/playwright/index.js';
import { launchRemote as launchPuppeteer, puppeteer } from '../../src/puppeteer/index.js';
import { type DevServer, startDevServer } from '../helpers/dev-server.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { startLoopbackSite } from '../helpers/loopback-site.js';

const env = useEmulatorAndSite({ ffmpegPath: false, isolation: 'remote' });
let dev: DevServer;
let api: BrowserApi;

beforeEach(async () => {
  dev = await startDevServer();
  api = await env.newAccountApi();
});
afterEach(async () => {
  await dev.close();
  await api.close();
});

/** The dev server's requests, Chromium's own favicon fetch left out. */
const paths = () =>
  dev.requests.map((r) => `${r.method} ${r.path}`).filter((p) => p !== 'GET /favicon.ico');

describe('exposeNetwork through Playwright', () => {
  it('serves a dev-server page with its CSS, image and fetch from the client by default', async () => {
    const browser = await launchRemote({ api });
    try {
      const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
      await page.goto(`${dev.origin}/`);
      await expect.poll(() => page.title()).toBe('POST ping');
      expect(await page.$eval('h1', (h) => getComputedStyle(h).color)).toBe('rgb(1, 2, 3)');
      expect(await page.$eval('#img', (i) => (i as HTMLImageElement).naturalWidth)).toBe(1);
      expect(paths()).toEqual(
        expect.arrayContaining(['GET /', 'GET /style.css', 'GET /img.png', 'POST /api/echo']),
      );
      expect(dev.requests.every((r) => r.fromClient)).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it("serves a page that loads 40 modules at once without a Node warning in the user's process", async () => {
    // A Vite dev server's first load: dozens of module requests in flight together.
    const modules = Array.from({ length: 40 }, (_, i) => `/m${i}.js`);
    const site = await startLoopbackSite(
      {
        '/': `<!doctype html><title>loading</title><script type="module">
await Promise.all(${JSON.stringify(modules)}.map((m) => import(m)));
document.title = 'loaded ' + window.loaded;</script>`,
      },
      {
        fallback: (_req, res) => {
          // Held a moment so that all of them are in flight at once.
          setTimeout(() => {
            res
              .writeHead(200, { 'content-type': 'text/javascript' })
              .end('window.loaded = (window.loaded ?? 0) + 1;');
          }, 200);
        },
      },
    );
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const browser = await launchRemote({ api });
    try {
      const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
      await page.goto(site.url('/'));
      await expect.poll(() => page.title()).toBe('loaded 40');
      // Node emits its warnings on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await browser.close();
      await site.close();
    }
  });

  it('hands a 302 with cookies to the browser, keeps HttpOnly and sends page-set cookies back', async () => {
    const browser = await launchRemote({ api });
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto(`${dev.origin}/login`);
      expect(page.url()).toBe(`${dev.origin}/account`);
      expect(await page.title()).toBe('signed in');
      expect(
        await page.evaluate(() => (window as { visibleCookies?: string }).visibleCookies),
      ).toBe('theme=dark; js=1');
      const cookie = await page.evaluate(() => fetch('/whoami').then((r) => r.text()));
      expect(cookie).toBe('sid=s3cret; theme=dark; js=1');
      expect(paths()).toEqual(['GET /login', 'GET /account', 'GET /whoami']);
      expect(dev.requests.every((r) => r.fromClient)).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it("lets the user's page.route() answer an exposed request before the tunnel", async () => {
    const browser = await launchRemote({ api });
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.route('**/api/echo', (route) => route.fulfill({ body: 'routed' }));
      await page.goto(`${dev.origin}/`);
      await expect.poll(() => page.title()).toBe('routed');
      expect(paths()).not.toContain('POST /api/echo');
      expect(paths()).toContain('GET /');
    } finally {
      await browser.close();
    }
  });

  it("with exposeNetwork '' the dev server receives no request and the page fails", async () => {
    const browser = await launchRemote({ api, exposeNetwork: '' });
    try {
      const page = await browser.contexts()[0]!.newPage();
      await expect(page.goto(`${dev.origin}/`)).rejects.toThrow(/net::ERR_/);
      expect(dev.requests).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('refuses the fetch, image and iframe of a page on a host that is not exposed, but follows its navigation back', async () => {
    const hostileSite = await startLoopbackSite({
      '/': `<!doctype html><title>hostile</title>
<img src="${dev.origin}/img.png"><iframe src="${dev.origin}/"></iframe>
<img referrerpolicy="no-referrer" src="${dev.origin}/img.png?nr">
<script>fetch('${dev.origin}/api/echo', { method: 'POST', body: 'steal' }).then(() => { document.title = 'reached'; }, () => { document.title = 'refused'; });</script>
<a id="back" href="${dev.origin}/account">back</a>`,
    });
    // A site of the emulator's internet, which the remote browser reaches on its own.
    await env.emu.admin.publish('hostile.test', hostileSite.origin);
    const browser = await launchRemote({ api });
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto('http://hostile.test/');
      await expect.poll(() => page.title()).toBe('refused');
      await page.waitForLoadState('load');
      expect(dev.requests).toEqual([]);
      await page.click('#back');
      await page.waitForURL(`${dev.origin}/account`);
      expect(paths()).toEqual(['GET /account']);
      expect(dev.requests[0]?.fromClient).toBe(true);
    } finally {
      await browser.close();
      await hostileSite.close();
    }
  });
});

describe('exposeNetwork for service workers and what it cannot carry', () => {
  it("serves a service worker's script and the fetches it makes", async () => {
    const browser = await launchRemote({ api });
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto(`${dev.origin}/sw.html`);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      const text = await page.evaluate(() => fetch('/via-sw').then((r) => r.text()));
      expect(text).toBe('POST from-sw');
      expect(paths()).toEqual(expect.arrayContaining(['GET /sw.js', 'POST /api/echo']));
      expect(dev.requests.every((r) => r.fromClient)).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('answers Server-Sent Events with a 502 that says why, and warns', async () => {
    const warnings: string[] = [];
    // Named like every warning of the library, so `w.name === 'RemoteBrowserWarning'` finds it.
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const browser = await launchRemote({ api });
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto(`${dev.origin}/account`);
      const answer = await page.evaluate(() =>
        fetch('/events').then(async (r) => `${r.status} ${await r.text()}`),
      );
      expect(answer).toMatch(
        /^502 remote-browser exposeNetwork cannot carry this response: Server-Sent Events/,
      );
      await expect
        .poll(() => warnings.join('\n'))
        .toMatch(/RemoteBrowserWarning: remote-browser exposeNetwork .*Server-Sent Events/);
    } finally {
      process.off('warning', onWarning);
      await browser.close();
    }
  });
});

describe('exposeNetwork through Puppeteer', () => {
  it('serves a dev-server page with its CSS, image and fetch from the client by default', async () => {
    const browser = await launchPuppeteer({ api });
    try {
      const page = await browser.newPage();
      await page.goto(`${dev.origin}/`);
      await page.waitForFunction(() => document.title === 'POST ping');
      expect(await page.$eval('#img', (i) => (i as HTMLImageElement).naturalWidth)).toBe(1);
      expect(paths()).toEqual(
        expect.arrayContaining(['GET /', 'GET /style.css', 'GET /img.png', 'POST /api/echo']),
      );
      expect(dev.requests.every((r) => r.fromClient)).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it("lets the user's request interception answer an exposed request before the tunnel", async () => {
    const browser = await launchPuppeteer({ api });
    try {
      const page = await browser.newPage();
      await page.setRequestInterception(true);
      page.on('request', (request) => {
        if (request.url().endsWith('/api/echo')) void request.respond({ body: 'intercepted' });
        else void request.continue();
      });
      await page.goto(`${dev.origin}/`);
      await page.waitForFunction(() => document.title === 'intercepted');
      expect(paths()).not.toContain('POST /api/echo');
      expect(dev.requests.every((r) => r.fromClient)).toBe(true);
    } finally {
      await browser.close();
    }
  });
});

describe('exposeNetwork through the drop-ins and the session pool', () => {
  it('serves the dev server to the drop-in chromium.launch() and honours remote.exposeNetwork', async () => {
    const browser = await chromium.launch({ remote: { api } });
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto(`${dev.origin}/login`);
      expect(await page.title()).toBe('signed in');
      expect(dev.requests.every((r) => r.fromClient)).toBe(true);
    } finally {
      await browser.close();
    }
    const before = dev.requests.length;
    const off = await chromium.launch({ remote: { api, exposeNetwork: '' } });
    try {
      const page = await off.contexts()[0]!.newPage();
      await expect(page.goto(`${dev.origin}/`)).rejects.toThrow(/net::ERR_/);
      expect(dev.requests.length).toBe(before);
    } finally {
      await off.close();
    }
  });

  it('serves the dev server to the drop-in puppeteer.launch()', async () => {
    const browser = await puppeteer.launch({ remote: { api } });
    try {
      const page = await browser.newPage();
      await page.goto(`${dev.origin}/login`);
      expect(await page.title()).toBe('signed in');
      expect(dev.requests.length).toBeGreaterThan(0);
      expect(dev.requests.every((r) => r.fromClient)).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it("serves the dev server to a pool's browsers", async () => {
    const pool = createSessionPool({ api, size: 1 });
    try {
      const browser = await pool.launch();
      const page = await browser.contexts()[0]!.newPage();
      await page.goto(`${dev.origin}/`);
      await expect.poll(() => page.title()).toBe('POST ping');
      expect(dev.requests.every((r) => r.fromClient)).toBe(true);
      await browser.close();
    } finally {
      await pool.close();
    }
  });
});

describe('exposeNetwork for WebSockets', () => {
  const expected = {
    got: ['welcome', 'hello', 'bin:1,2,255', 'bin:98,108,111,98'],
    first: [4000, 'done', true],
    second: [4001, 'bye', true],
  };
  /** What the dev server saw of the two sockets of /ws.html, after a cookie login. */
  const expectServerSide = () => {
    expect(dev.sockets.map((s) => s.received)).toEqual([
      ['hello', 'bin:1,2,255', 'bin:98,108,111,98'],
      ['close-me'],
    ]);
    expect(dev.sockets[0]?.closedWith).toEqual([4000, 'done']);
    for (const socket of dev.sockets) {
      expect(socket).toMatchObject({ fromClient: true, origin: dev.origin });
      // The browser's cookies for the URL, the HttpOnly one included.
      expect(socket.cookie?.split('; ').sort()).toEqual(['js=1', 'sid=s3cret', 'theme=dark']);
    }
  };

  it("carries a dev-server page's WebSockets both ways through Playwright: text, binary, close codes, cookies", async () => {
    const browser = await launchRemote({ api });
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto(`${dev.origin}/login`);
      await page.goto(`${dev.origin}/ws.html`);
      await expect.poll(() => page.title()).toBe('ws done');
      expect(await page.evaluate(() => (window as { wsResult?: unknown }).wsResult)).toEqual(
        expected,
      );
      expectServerSide();
    } finally {
      await browser.close();
    }
  });

  it("carries a dev-server page's WebSockets both ways through Puppeteer", async () => {
    const browser = await launchPuppeteer({ api });
    try {
      const page = await browser.newPage();
      await page.goto(`${dev.origin}/login`);
      await page.goto(`${dev.origin}/ws.html`);
      await page.waitForFunction(() => document.title === 'ws done');
      expect(await page.evaluate(() => (window as { wsResult?: unknown }).wsResult)).toEqual(
        expected,
      );
      expectServerSide();
    } finally {
      await browser.close();
    }
  });

  it("lets the user's routeWebSocket() answer an exposed page's WebSocket before the bridge", async () => {
    const browser = await launchRemote({ api });
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.routeWebSocket('**/ws', (ws) => {
        ws.onMessage((message) => ws.send(`routed ${String(message)}`));
      });
      await page.goto(`${dev.origin}/account`);
      const answer = await page.evaluate(
        () =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(`ws://${location.host}/ws`);
            ws.onopen = () => ws.send('hi');
            ws.onmessage = (e) => resolve(String(e.data));
          }),
      );
      expect(answer).toBe('routed hi');
      expect(dev.sockets).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('never opens a WebSocket to the client for a page that is not exposed, even in a tab that was', async () => {
    const hostileSite = await startLoopbackSite({
      '/': `<!doctype html><title>hostile</title><script>
const ws = new WebSocket('ws://localhost:${dev.port}/ws');
ws.onopen = () => { document.title = 'reached'; };
ws.onclose = (e) => { document.title = 'refused ' + e.code; };
</script>`,
    });
    await env.emu.admin.publish('hostile.test', hostileSite.origin);
    const browser = await launchRemote({ api });
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto('http://hostile.test/');
      await expect.poll(() => page.title()).toBe('refused 1006');
      // The same tab after an exposed page: the bridge is in place, and still refuses.
      await page.goto(`${dev.origin}/account`);
      await page.goto('http://hostile.test/');
      await expect.poll(() => page.title()).toBe('refused 1006');
      expect(dev.sockets).toEqual([]);
    } finally {
      await browser.close();
      await hostileSite.close();
    }
  });

  it("with exposeNetwork '' a page at the dev server's address opens no WebSocket to it", async () => {
    const browser = await launchRemote({ api, exposeNetwork: '' });
    try {
      const page = await browser.contexts()[0]!.newPage();
      // The user's own route serves the page, so only its WebSocket could reach the client.
      await page.route(`${dev.origin}/ws.html`, (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<script>const ws = new WebSocket('ws://' + location.host + '/ws');
ws.onopen = () => { document.title = 'reached'; };
ws.onclose = (e) => { document.title = 'closed ' + e.code; };</script>`,
        }),
      );
      await page.goto(`${dev.origin}/ws.html`);
      await expect.poll(() => page.title()).toBe('closed 1006');
      expect(dev.sockets).toEqual([]);
      expect(dev.requests).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
