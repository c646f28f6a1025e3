import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { connectRemote, launchRemote, puppeteer, sessionOf } from '../../src/puppeteer/index.js';
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
});
