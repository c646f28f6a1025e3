import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, DownloadBehavior, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { connectRemote, launchRemote, puppeteer, sessionOf } from '../../src/puppeteer/index.js';
import { bridgeTransfers, connectionOf, downloadOptions } from '../../src/puppeteer/transfers.js';
import { openRemoteFeatures, type RemoteFeatures } from '../../src/remote-cdp/remote-features.js';
import { eventually } from '../helpers/pages.js';
import {
  openRemoteTransfers,
  type RemoteTransfers,
  sha256,
  type TransferSite,
} from '../helpers/transfer-site.js';

let site: TransferSite;
let api: BrowserApi;
let dir: string;
let transfers: RemoteTransfers;

beforeAll(async () => {
  transfers = await openRemoteTransfers('rb-download-behavior-');
  ({ site, api, dir } = transfers);
});

afterAll(async () => {
  await transfers?.close();
});

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function clickAndWait(page: Page, folder: string, selector: string, name: string) {
  await page.click(selector);
  const path = join(folder, name);
  await eventually(async () => existsSync(path), 20_000, `${name} in the download folder`);
  return readFileSync(path);
}

describe('Puppeteer downloadBehavior on a remote browser', () => {
  it('launchRemote with policy allow fills the client folder by suggested name, a second copy as "name (1)"', async () => {
    const folder = mkdtempSync(join(dir, 'allow-'));
    const browser = await launchRemote({
      api,
      downloadBehavior: { policy: 'allow', downloadPath: folder },
    });
    try {
      const page = (await browser.pages())[0]!;
      await page.goto('http://files.test/');
      expect(sha256(await clickAndWait(page, folder, '#attachment', 'export.bin'))).toBe(
        site.fileSha,
      );
      expect(sha256(await clickAndWait(page, folder, '#attachment', 'export (1).bin'))).toBe(
        site.fileSha,
      );
      expect((await clickAndWait(page, folder, '#download-attr', 'notes.txt')).toString()).toBe(
        'plain text, rendered or saved',
      );
      expect(readdirSync(folder).sort()).toEqual(['export (1).bin', 'export.bin', 'notes.txt']);
    } finally {
      await browser.close();
    }
  });

  it('connectRemote with policy allowAndName names each file by its guid', async () => {
    const folder = mkdtempSync(join(dir, 'guid-'));
    const first = await launchRemote({ api });
    const id = sessionOf(first).id;
    await first.disconnect();
    const browser = await connectRemote(id, {
      api,
      downloadBehavior: { policy: 'allowAndName', downloadPath: folder },
    });
    try {
      const page = (await browser.pages())[0]!;
      await page.goto('http://files.test/');
      await page.click('#attachment');
      await eventually(
        async () => readdirSync(folder).length === 1,
        20_000,
        'one file in the folder',
      );
      const [name] = readdirSync(folder);
      expect(name).toMatch(GUID);
      expect(sha256(readFileSync(join(folder, name!)))).toBe(site.fileSha);
    } finally {
      await browser.close();
    }
  });

  it('the drop-in’s launch({ downloadBehavior }) fills the client folder instead of ignoring it', async () => {
    const folder = mkdtempSync(join(dir, 'drop-in-'));
    const browser = await puppeteer.launch({
      downloadBehavior: { policy: 'allow', downloadPath: folder },
      remote: { api },
    });
    try {
      const page = (await browser.pages())[0]!;
      await page.goto('http://files.test/');
      expect(sha256(await clickAndWait(page, folder, '#attachment', 'export.bin'))).toBe(
        site.fileSha,
      );
    } finally {
      await browser.close();
    }
  });

  it('a download over maxDownloadBytes is not placed, and a warning says why', async () => {
    const folder = mkdtempSync(join(dir, 'capped-'));
    const warned = new Promise<Error>((resolve) => {
      const onWarning = (warning: Error & { code?: string }) => {
        if (warning.code !== 'REMOTE_BROWSER_DOWNLOAD_TOO_LARGE') return;
        process.off('warning', onWarning);
        resolve(warning);
      };
      process.on('warning', onWarning);
    });
    const browser = await launchRemote({
      api,
      downloadBehavior: { policy: 'allow', downloadPath: folder },
      maxDownloadBytes: 64 * 1024,
    });
    try {
      const page = (await browser.pages())[0]!;
      await page.goto('http://files.test/');
      await page.click('#attachment');
      expect((await warned).message).toMatch(
        /larger than maxDownloadBytes \(65536 bytes\): failed and its partial file removed; raise maxDownloadBytes/,
      );
      expect(readdirSync(folder)).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('policy allow without a downloadPath is a RequestValidationError naming the field, before any session', async () => {
    const before = (await api.sessions.list({ status: 'running' })).length;
    await expect(
      launchRemote({ api, downloadBehavior: { policy: 'allow' } }),
    ).rejects.toMatchObject({
      name: 'RequestValidationError',
      message: expect.stringContaining('downloadBehavior.downloadPath'),
    });
    expect((await api.sessions.list({ status: 'running' })).length).toBe(before);
  });

  it('a CDP stream that rewrites Browser.downloadWillBegin cannot place a file outside downloadPath', async () => {
    const session = await api.sessions.create({});
    const proxy = await rewritingProxy(session.cdp_url, (params) => {
      params.suggestedFilename = '../name.txt';
    });
    const folder = mkdtempSync(join(dir, 'rewritten-name-'));
    const browser = await puppeteer.connect({
      browserWSEndpoint: proxy.url,
      defaultViewport: null,
    });
    try {
      await bridgeOver(proxy.url, browser, { policy: 'allow', downloadPath: folder });
      const page = (await browser.pages())[0]!;
      await page.goto('http://files.test/');
      expect(sha256(await clickAndWait(page, folder, '#attachment', 'name.txt'))).toBe(
        site.fileSha,
      );
      expect(existsSync(join(dir, 'name.txt'))).toBe(false);
    } finally {
      await browser.disconnect();
      await proxy.close();
      await api.sessions.end(session.id).catch(() => {});
    }
  });

  it('a rewritten guid that is not one fails the download: nothing lands outside downloadPath', async () => {
    const session = await api.sessions.create({});
    const proxy = await rewritingProxy(session.cdp_url, (params) => {
      params.guid = '../escaped/.bashrc';
    });
    const folder = mkdtempSync(join(dir, 'rewritten-guid-'));
    const browser = await puppeteer.connect({
      browserWSEndpoint: proxy.url,
      defaultViewport: null,
    });
    try {
      await bridgeOver(proxy.url, browser, { policy: 'allowAndName', downloadPath: folder });
      const page = (await browser.pages())[0]!;
      await page.goto('http://files.test/');
      await page.click('#attachment');
      await eventually(async () => proxy.rewritten() > 0, 20_000, 'the rewritten event');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(existsSync(join(dir, 'escaped'))).toBe(false);
      expect(readdirSync(folder)).toEqual([]);
    } finally {
      await browser.disconnect();
      await proxy.close();
      await api.sessions.end(session.id).catch(() => {});
    }
  });
});

/**
 * The transfers of a launch (the adapter's connect: the features' own connection, adopted by the
 * browser, then Puppeteer's glue), on a `cdpUrl` the test chose: the hostile proxy's.
 */
async function bridgeOver(
  cdpUrl: string,
  browser: Browser,
  behavior: DownloadBehavior,
): Promise<RemoteFeatures> {
  const features = openRemoteFeatures(cdpUrl, {
    exposeNetwork: '',
    downloads: downloadOptions(behavior),
  });
  features.adopt(browser);
  await Promise.all([features.ready(), bridgeTransfers(connectionOf(browser), features.downloads)]);
  return features;
}

/**
 * A hostile service in miniature: a WebSocket proxy between the client and the session's
 * cdp_url that rewrites the params of every `Browser.downloadWillBegin` on the way in.
 */
async function rewritingProxy(
  cdpUrl: string,
  rewrite: (params: Record<string, unknown>) => void,
): Promise<{ url: string; rewritten(): number; close(): Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  let count = 0;
  server.on('connection', (client) => {
    const upstream = new WebSocket(cdpUrl);
    const queued: string[] = [];
    upstream.on('open', () => {
      for (const text of queued.splice(0)) upstream.send(text);
    });
    client.on('message', (data) => {
      const text = data.toString();
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else queued.push(text);
    });
    upstream.on('message', (data) => {
      const message = JSON.parse(data.toString()) as {
        method?: string;
        params?: Record<string, unknown>;
      };
      if (message.method === 'Browser.downloadWillBegin' && message.params) {
        rewrite(message.params);
        count++;
      }
      client.send(JSON.stringify(message));
    });
    client.on('close', () => upstream.close());
    upstream.on('close', () => client.close());
    upstream.on('error', () => client.close());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/`,
    rewritten: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
