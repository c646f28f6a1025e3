import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { launchRemote, type RemoteBrowser } from '../../src/puppeteer/index.js';
import {
  openRemoteTransfers,
  patternBytes,
  type RemoteTransfers,
  sha256,
} from '../helpers/transfer-site.js';

let api: BrowserApi;
let dir: string;
let transfers: RemoteTransfers;
let browser: RemoteBrowser;
let page: Page;
/** Client files: the remote browser's disk has none of them. */
let big: string;
let small: string;
const bigBytes = patternBytes(5 * 1024 * 1024 + 123, 7);

beforeAll(async () => {
  transfers = await openRemoteTransfers('rb-uploads-', 1024);
  ({ api, dir } = transfers);
  big = join(dir, 'report.bin');
  small = join(dir, 'notes.txt');
  writeFileSync(big, bigBytes);
  writeFileSync(small, 'client notes');
  utimesSync(small, new Date('2024-01-02T03:04:05Z'), new Date('2024-01-02T03:04:05Z'));
  browser = await launchRemote({ api });
  page = (await browser.pages())[0]!;
});

afterAll(async () => {
  await browser?.close();
  await transfers?.close();
});

interface Received {
  name: string;
  type: string;
  size: number;
  sha256: string;
}

/** Submits the form and returns what the site received. */
async function submit(): Promise<Received[]> {
  await Promise.all([page.waitForNavigation(), page.click('#send')]);
  return JSON.parse((await page.$eval('#result', (el) => el.textContent)) ?? '[]');
}

describe('Puppeteer uploads on a remote browser', () => {
  it('uploadFile() sends the client files’ bytes, names and types (sha256 on the server)', async () => {
    await page.goto('http://files.test/upload');
    const input = (await page.$('#file')) as ElementHandle<HTMLInputElement>;
    await input.uploadFile(big, small);
    const seen = await page.$eval('#file', (el) =>
      Array.from((el as HTMLInputElement).files!).map((f) => ({
        name: f.name,
        lastModified: f.lastModified,
      })),
    );
    expect(seen).toEqual([
      { name: 'report.bin', lastModified: expect.any(Number) },
      { name: 'notes.txt', lastModified: Date.parse('2024-01-02T03:04:05Z') },
    ]);
    expect(await submit()).toEqual([
      {
        name: 'report.bin',
        type: 'application/octet-stream',
        size: bigBytes.length,
        sha256: sha256(bigBytes),
      },
      {
        name: 'notes.txt',
        type: 'text/plain',
        size: 12,
        sha256: sha256(Buffer.from('client notes')),
      },
    ]);
  });

  it('FileChooser.accept() uploads the chosen file, firing input and change as a user’s choice does', async () => {
    await page.goto('http://files.test/upload');
    await page.evaluate(() => {
      const events: string[] = [];
      (window as unknown as { events: string[] }).events = events;
      const input = document.getElementById('file')!;
      for (const type of ['input', 'change']) input.addEventListener(type, () => events.push(type));
    });
    const [chooser] = await Promise.all([page.waitForFileChooser(), page.click('#file')]);
    await chooser.accept([small]);
    expect(await page.evaluate(() => (window as unknown as { events: string[] }).events)).toEqual([
      'input',
      'change',
    ]);
    expect(await submit()).toEqual([
      {
        name: 'notes.txt',
        type: 'text/plain',
        size: 12,
        sha256: sha256(Buffer.from('client notes')),
      },
    ]);
  });

  it('a client path that does not exist is an UploadFileError naming it, and the input stays empty', async () => {
    await page.goto('http://files.test/upload');
    const input = (await page.$('#file')) as ElementHandle<HTMLInputElement>;
    const missing = join(dir, 'missing.txt');
    await expect(input.uploadFile(missing)).rejects.toMatchObject({
      name: 'UploadFileError',
      message: expect.stringContaining(`"${missing}" cannot be read on the client (ENOENT)`),
    });
    expect(await page.$eval('#file', (el) => (el as HTMLInputElement).files!.length)).toBe(0);
  });
});
