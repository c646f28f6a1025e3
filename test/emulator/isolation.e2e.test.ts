/**
 * How remote the emulator's browsers are, tried as any raw-CDP client would (puppeteer-core's
 * `connect` on the `cdp_url`; no library code in the path but `startEmulator` and plain HTTP
 * calls to create sessions). Every check runs against both isolations: on `'remote'` it must
 * see what a browser of the real service sees, on `'none'` it must see the leak (so each check
 * is shown to fail where the browser runs on the client's machine).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { client } from './helpers/emulator.js';

type Isolation = 'remote' | 'none';

/** A server of the client's own machine, on every address: it counts what reaches it. */
async function startClientServer(): Promise<{
  port: number;
  hits: string[];
  close(): Promise<void>;
}> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
    res.end('client secret page');
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    hits.push(`UPGRADE ${req.url}`);
    wss.handleUpgrade(req, socket, head, (ws) => ws.send('hello'));
  });
  // '::' takes IPv4 too (dual stack): 127.0.0.1, ::1 and the host's other addresses.
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        wss.close();
        server.close(() => resolve());
      }),
  };
}

/** The test's site, to be published: a page, a file input, a download, a WebSocket echo, the headers it got. */
async function startSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url === '/download') {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="report.txt"',
      });
      res.end('downloaded bytes');
      return;
    }
    if (req.url === '/headers') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.headers));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<title>shop</title><h1 id="h">Shop by name</h1><input type="file" id="f">');
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => ws.on('message', (data) => ws.send(`echo:${data}`)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        wss.close();
        server.close(() => resolve());
      }),
  };
}

/** Every address of this machine a page could try: loopback in all its names, and the others. */
function hostAddresses(port: number): string[] {
  const urls = [
    `http://127.0.0.1:${port}/`,
    `http://localhost:${port}/`,
    `http://[::1]:${port}/`,
    `http://127.1.2.3:${port}/`,
  ];
  for (const list of Object.values(networkInterfaces())) {
    for (const address of list ?? []) {
      if (address.internal) continue;
      urls.push(
        address.family === 'IPv6'
          ? `http://[${address.address}]:${port}/`
          : `http://${address.address}:${port}/`,
      );
    }
  }
  return urls;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(['remote', 'none'] as const)(
  "isolation '%s' (on 'none' each check must see the leak instead)",
  (isolation: Isolation) => {
    const faithful = isolation === 'remote';
    let emu: EmulatorHandle;
    let api: ReturnType<typeof client>;
    let site: Awaited<ReturnType<typeof startSite>>;
    let clientServer: Awaited<ReturnType<typeof startClientServer>>;
    let browser: Browser;
    let page: Page;
    let clientDir: string;
    /** Where the page starts: the published site by name, or (with 'none', where no name resolves) its own address. */
    let home: string;

    beforeAll(async () => {
      site = await startSite();
      clientServer = await startClientServer();
      clientDir = await mkdtemp(join(tmpdir(), 'isolation-client-'));
      emu = await startEmulator({
        ffmpegPath: false,
        isolation,
        internet: { 'shop.test': site.origin },
      });
      expect(emu.isolation).toBe(isolation);
      api = client(emu.url, emu.token);
      const created = await api('POST', '/sessions', {
        body: { proxy_password: emu.proxyPassword },
      });
      expect(created.status, created.text).toBe(200);
      browser = await puppeteer.connect({ browserWSEndpoint: created.body.data.cdp_url });
      home = faithful ? 'http://shop.test/' : `${site.origin}/`;
    });
    // A tab per check: an error page of one (Chromium reloads some) must not navigate the next.
    beforeEach(async () => {
      page = await browser.newPage();
    });
    afterEach(async () => {
      await page?.close().catch(() => {});
    });
    afterAll(async () => {
      await browser?.disconnect();
      await emu?.close();
      await site?.close();
      await clientServer?.close();
      if (clientDir) await rm(clientDir, { recursive: true, force: true });
    });

    it('reaches no server of the client machine: navigation, fetch, WebSocket, a worker, any address', async () => {
      clientServer.hits.length = 0;
      const urls = hostAddresses(clientServer.port);
      for (const url of urls) {
        await page.goto(url, { timeout: 10_000 }).catch(() => {});
      }
      // A tab of its own: the error pages above may still be reloading in the first one.
      const tab = await browser.newPage();
      await tab.goto(home);
      await tab.evaluate(async (targets: string[]) => {
        const tries = targets.flatMap((url) => [
          fetch(`${url}fetch`, { mode: 'no-cors' }).catch(() => {}),
          new Promise<void>((done) => {
            const ws = new WebSocket(`${url.replace('http', 'ws')}socket`);
            ws.onopen = ws.onerror = ws.onclose = () => done();
            setTimeout(done, 3000);
          }),
        ]);
        const worker = new Worker(
          URL.createObjectURL(
            new Blob(
              [
                `Promise.all(${JSON.stringify(targets)}.map((u) => fetch(u + 'worker', { mode: 'no-cors' }).catch(() => {}))).then(() => postMessage('done'))`,
              ],
              { type: 'text/javascript' },
            ),
          ),
        );
        tries.push(
          new Promise<void>((done) => {
            worker.onmessage = () => done();
            setTimeout(done, 5000);
          }),
        );
        await Promise.all(tries);
      }, urls);
      await tab.close();
      await settle(300);
      if (faithful) expect(clientServer.hits).toEqual([]);
      else {
        expect(clientServer.hits).toContain('GET /fetch');
        expect(clientServer.hits).toContain('GET /worker');
        expect(clientServer.hits).toContain('UPGRADE /socket');
      }
    });

    it('does not show a client file through file://, nor upload it with DOM.setFileInputFiles', async () => {
      const secret = join(clientDir, 'secret.txt');
      await writeFile(secret, 'client-only secret bytes');
      await page.goto(`file://${secret}`).catch(() => {});
      const shown = await page.content();
      expect(shown.includes('client-only secret bytes')).toBe(!faithful);

      await page.goto(home);
      const cdp = await page.createCDPSession();
      const { root } = await cdp.send('DOM.getDocument');
      const { nodeId } = await cdp.send('DOM.querySelector', {
        nodeId: root.nodeId,
        selector: '#f',
      });
      await cdp.send('DOM.setFileInputFiles', { nodeId, files: [secret] }).catch(() => {});
      const uploaded = await page.evaluate(async () => {
        const file = (document.getElementById('f') as HTMLInputElement).files?.[0];
        return file ? await file.text().catch(() => '') : '';
      });
      expect(uploaded === 'client-only secret bytes').toBe(!faithful);
      await cdp.detach();
    });

    it('puts a download sent to a client folder on its own disk, not in that folder', async () => {
      const folder = join(clientDir, 'downloads');
      const cdp = await browser.target().createCDPSession();
      await cdp.send('Browser.setDownloadBehavior', {
        behavior: 'allow',
        downloadPath: folder,
        eventsEnabled: true,
      });
      const finished = new Promise<string>((resolve) => {
        cdp.on('Browser.downloadProgress', (event: { state: string }) => {
          if (event.state !== 'inProgress') resolve(event.state);
        });
        setTimeout(() => resolve('timeout'), 10_000);
      });
      await page.goto(`${home}download`).catch(() => {});
      // The download itself succeeds in both: only where it lands differs.
      expect(await finished).toBe('completed');
      await settle(300);
      const landed = existsSync(folder) ? await readdir(folder) : [];
      expect(landed.includes('report.txt')).toBe(!faithful);
      await cdp.detach();
    });

    it('loads a published site by name, over http, https and a WebSocket, with the exit as X-Forwarded-For', async () => {
      const load = async (url: string) => {
        const response = await page.goto(url, { timeout: 10_000 }).catch(() => undefined);
        if (response?.ok()) return await page.$eval('#h', (h) => h.textContent);
        // A navigation that timed out may still be pending: leave it for a settled page.
        await page.goto('about:blank');
        return undefined;
      };
      const http = await load('http://shop.test/');
      const https = await load('https://shop.test/');
      // A navigation that timed out may still be pending (on 'none' the name waits on this
      // machine's resolver): a settled blank page to run the WebSocket from.
      await page.goto('about:blank');
      const echo = await page
        .evaluate(
          (url) =>
            new Promise<string>((resolve) => {
              const ws = new WebSocket(url);
              ws.onopen = () => ws.send('ping');
              ws.onmessage = (event) => resolve(String(event.data));
              ws.onerror = () => resolve('error');
              // Without an exit the name may wait on this machine's resolver: bounded.
              setTimeout(() => resolve('error'), 8000);
            }),
          'wss://shop.test/',
        )
        .catch(() => 'error');
      await emu.admin.publish('late.test', site.origin);
      const late = await load('http://late.test/');
      const headers = await page
        .goto('http://shop.test/headers', { timeout: 10_000 })
        .then((r) => r?.json() as Promise<Record<string, string>>)
        .catch(() => undefined);
      if (faithful) {
        expect([http, https, echo, late]).toEqual([
          'Shop by name',
          'Shop by name',
          'echo:ping',
          'Shop by name',
        ]);
        expect(headers?.['x-forwarded-for']).toMatch(/^198\.51\.100\.\d+$/);
        expect(headers?.host).toBe('shop.test');
      } else {
        expect([http, https, echo, late]).toEqual([undefined, undefined, 'error', undefined]);
      }
    });

    it('shows on exit.test the targeting of each session', async () => {
      const asks = [
        { country: 'de', region: 'be' },
        { country: 'fr', region: 'idf' },
        { country: 'us', region: 'ny', session_type: 'rotating' },
      ];
      const seen: Record<string, unknown>[] = [];
      for (const ask of asks) {
        const created = await api('POST', '/sessions', {
          body: { proxy_password: emu.proxyPassword, ...ask },
        });
        expect(created.status, created.text).toBe(200);
        const other = await puppeteer.connect({ browserWSEndpoint: created.body.data.cdp_url });
        const otherPage = (await other.pages())[0]!;
        const identity = await otherPage
          .goto('http://exit.test/', { timeout: 10_000 })
          .then((r) => r?.json() as Promise<Record<string, unknown>>)
          .catch(() => ({}));
        seen.push(identity);
        await other.disconnect();
        await api('DELETE', `/sessions/${created.body.data.id}`);
      }
      if (!faithful) {
        expect(seen).toEqual([{}, {}, {}]);
        return;
      }
      expect(seen.map(({ country, region }) => ({ country, region }))).toEqual(
        asks.map(({ country, region }) => ({ country, region })),
      );
      expect(seen.map((s) => s.session_type)).toEqual(['sticky', 'sticky', 'rotating']);
      expect(seen[0]!.ip).toMatch(/^198\.51\.100\.\d+$/);
      expect(seen[1]!.ip).toMatch(/^198\.51\.100\.\d+$/);
      expect(seen[2]!.ip).toMatch(/^203\.0\.113\.\d+$/);
      for (const identity of seen) {
        expect(Object.keys(identity).sort()).toEqual(
          [
            'city',
            'connection_type',
            'country',
            'ip',
            'isp',
            'latitude',
            'longitude',
            'region',
            'session_type',
            'time_zone',
            'zip',
          ].sort(),
        );
      }
    });
  },
);

describe("a pin_ip profile's exit", () => {
  it("is one 192.0.2.x address for each of its sessions, at the profile's pinned location", async () => {
    const emu = await startEmulator({ ffmpegPath: false, isolation: 'remote' });
    try {
      const api = client(emu.url, emu.token);
      const profile = await api('POST', '/profiles', { body: { name: 'pinned', pin_ip: true } });
      expect(profile.status, profile.text).toBe(200);
      const exits: Record<string, string>[] = [];
      for (const ask of [{ country: 'gb', region: 'sct' }, {}]) {
        const created = await api('POST', '/sessions', {
          body: { proxy_password: emu.proxyPassword, profile_id: profile.body.data.id, ...ask },
        });
        expect(created.status, created.text).toBe(200);
        const browser = await puppeteer.connect({ browserWSEndpoint: created.body.data.cdp_url });
        const page = (await browser.pages())[0]!;
        exits.push(
          (await (await page.goto('http://exit.test/'))!.json()) as Record<string, string>,
        );
        await browser.disconnect();
        await api('DELETE', `/sessions/${created.body.data.id}`);
      }
      const [first, second] = exits as [Record<string, string>, Record<string, string>];
      expect(first.ip).toMatch(/^192\.0\.2\.\d+$/);
      expect(second).toEqual(first);
      const pinned = (await api('GET', '/profiles')).body.data[0];
      expect([first.country, first.region, first.city, first.isp]).toEqual([
        pinned.pinned_country,
        pinned.pinned_region,
        pinned.pinned_city,
        pinned.pinned_isp,
      ]);
      expect(first.country).toBe('gb');
    } finally {
      await emu.close();
    }
  });
});

describe('an emulator over TLS', () => {
  it('serves sessions to Playwright, Puppeteer, fetch and the library (built) in a child process that trusts emulator.ca', async () => {
    const site = await startSite();
    const emu = await startEmulator({
      ffmpegPath: false,
      tls: true,
      isolation: 'remote',
      internet: { 'shop.test': site.origin },
    });
    const dir = await mkdtemp(join(tmpdir(), 'isolation-tls-'));
    try {
      expect(emu.url).toMatch(/^https:\/\//);
      expect(emu.ca).toContain('BEGIN CERTIFICATE');
      await writeFile(join(dir, 'ca.pem'), emu.ca!);
      // The child knows nothing but the URL, the credentials and the CA file.
      const script = `
        import { chromium } from 'playwright-core';
        import puppeteer from 'puppeteer-core';
        const create = async () => {
          const r = await fetch(process.env.EMU + '/api/v2/browser/sessions', {
            method: 'POST',
            headers: { authorization: 'Bearer ' + process.env.TOKEN, 'content-type': 'application/json' },
            body: JSON.stringify({ proxy_password: process.env.PASSWORD }),
          });
          return (await r.json()).data;
        };
        const first = await create();
        const pw = await chromium.connectOverCDP(first.cdp_url);
        const page = pw.contexts()[0].pages()[0];
        await page.goto('https://shop.test/');
        const title = await page.title();
        await pw.close();
        const second = await create();
        const pp = await puppeteer.connect({ browserWSEndpoint: second.cdp_url });
        const ppPage = (await pp.pages())[0];
        await ppPage.goto('http://exit.test/');
        const exit = JSON.parse(await ppPage.$eval('body', (b) => b.textContent));
        await pp.disconnect();
        // The library itself (built package): its undici client and its Playwright connect.
        const { launchRemote } = await import('remote-browser/playwright');
        const lib = await launchRemote({ baseUrl: process.env.EMU, token: process.env.TOKEN, proxyPassword: process.env.PASSWORD });
        const libPage = lib.contexts()[0].pages()[0];
        await libPage.goto('https://shop.test/');
        const libTitle = await libPage.title();
        await lib.close();
        const connection = await fetch(process.env.EMU + '/api/v2/browser/sessions/' + second.id + '/connection', {
          headers: { authorization: 'Bearer ' + process.env.TOKEN },
        }).then((r) => r.json());
        const liveUrl = connection.data.live_view_url;
        const live = await fetch(liveUrl).then((r) => r.status, (e) => String(e));
        console.log(JSON.stringify({ cdp: second.cdp_url.slice(0, 6), title, libTitle, ip: exit.ip, live, liveScheme: liveUrl.slice(0, 8) }));
      `;
      const scriptPath = join(process.cwd(), 'test', `.tls-child-${process.pid}.mjs`);
      await writeFile(scriptPath, script);
      try {
        const output = await new Promise<string>((resolve, reject) =>
          execFile(
            process.execPath,
            [scriptPath],
            {
              env: {
                ...process.env,
                NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
                EMU: emu.url,
                TOKEN: emu.token,
                PASSWORD: emu.proxyPassword,
              },
              timeout: 60_000,
            },
            (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)),
          ),
        );
        const result = JSON.parse(output.trim().split('\n').pop()!);
        expect(result).toMatchObject({
          cdp: 'wss://',
          title: 'shop',
          libTitle: 'shop',
          live: 200,
          liveScheme: 'https://',
        });
        expect(result.ip).toMatch(/^198\.51\.100\.\d+$/);
      } finally {
        await rm(scriptPath, { force: true });
      }
    } finally {
      await emu.close();
      await site.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
