import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { chromium, launchRemote } from '../../src/playwright/index.js';
import {
  openRemoteTransfers,
  patternBytes,
  type RemoteTransfers,
  sha256,
  type TransferSite,
} from '../helpers/transfer-site.js';

let site: TransferSite;
let api: BrowserApi;
let dir: string;
let transfers: RemoteTransfers;

/** The site by its name on the emulator's internet: the remote browser reaches nothing else. */
const home = 'http://files.test/';

beforeAll(async () => {
  transfers = await openRemoteTransfers('rb-downloads-');
  ({ site, api, dir } = transfers);
});

afterAll(async () => {
  await transfers?.close();
});

async function download(page: Page, selector: string): Promise<Download> {
  const [started] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return started;
}

async function withBrowser(
  run: (browser: Browser, page: Page) => Promise<void>,
  options: { maxDownloadBytes?: number } = {},
) {
  const browser = await launchRemote({ api, ...options });
  try {
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(home);
    await run(browser, page);
  } finally {
    await browser.close();
  }
}

describe('Playwright downloads on a remote browser', () => {
  it('saveAs() and path() give the attachment’s exact bytes on the client, fetched once', async () => {
    await withBrowser(async (_browser, page) => {
      const before = site.fileRequests();
      const started = await download(page, '#attachment');
      expect(started.suggestedFilename()).toBe('export.bin');
      const target = join(dir, 'saved.bin');
      await started.saveAs(target);
      expect(sha256(readFileSync(target))).toBe(site.fileSha);
      expect(sha256(readFileSync(await started.path()))).toBe(site.fileSha);
      expect(await started.failure()).toBeNull();
      expect(site.fileRequests() - before).toBe(1);
    });
  });

  it('a download from a dev server on the client’s loopback (exposeNetwork) arrives, fetched once', async () => {
    await withBrowser(async (_browser, page) => {
      await page.goto(site.url('/'));
      const before = site.fileRequests();
      const started = await download(page, '#attachment');
      await started.saveAs(join(dir, 'exposed.bin'));
      expect(sha256(readFileSync(join(dir, 'exposed.bin')))).toBe(site.fileSha);
      expect(site.fileRequests() - before).toBe(1);
    });
  });

  it('a download over maxDownloadBytes fails with the reason, and nothing of it stays on the client', async () => {
    // The bridge stages in os.tmpdir(): this browser's own, so other processes' files do not count.
    const tmp = mkdtempSync(join(dir, 'tmp-cap-'));
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      await withBrowser(
        async (_browser, page) => {
          const started = await download(page, '#attachment');
          expect(await started.failure()).toMatch(
            /larger than maxDownloadBytes \(65536 bytes\): failed and its partial file removed/,
          );
          await expect(started.saveAs(join(dir, 'capped.bin'))).rejects.toThrow(
            /download\.saveAs: .*larger than maxDownloadBytes/,
          );
          expect(readdirSync(dir)).not.toContain('capped.bin');
          expect(stagedBytes(tmp)).toBe(0);
        },
        { maxDownloadBytes: 64 * 1024 },
      );
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
  });

  it('createReadStream() streams the same bytes', async () => {
    await withBrowser(async (_browser, page) => {
      const started = await download(page, '#attachment');
      const chunks: Buffer[] = [];
      for await (const chunk of await started.createReadStream()) chunks.push(chunk as Buffer);
      expect(sha256(Buffer.concat(chunks))).toBe(site.fileSha);
    });
  });

  it('an <a download> link and a data: URL arrive with the browser’s suggested names', async () => {
    await withBrowser(async (_browser, page) => {
      const linked = await download(page, '#download-attr');
      expect(linked.suggestedFilename()).toBe('notes.txt');
      expect(readFileSync(await linked.path(), 'utf8')).toBe('plain text, rendered or saved');
      const data = await download(page, '#data');
      expect(data.suggestedFilename()).toBe('hello.txt');
      expect(readFileSync(await data.path(), 'utf8')).toBe('hello from data');
    });
  });

  it('a text page that is not a download still renders in full', async () => {
    await withBrowser(async (_browser, page) => {
      await page.click('#page');
      await expect.poll(() => page.textContent('body')).toBe('plain text, rendered or saved');
    });
  });

  it('downloads of a context opened with browser.newContext() arrive too', async () => {
    const browser = await launchRemote({ api, extraContexts: 'allow' });
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(home);
      const started = await download(page, '#attachment');
      expect(sha256(readFileSync(await started.path()))).toBe(site.fileSha);
    } finally {
      await browser.close();
    }
  });

  it('a blob: URL made by the page arrives, read from the page over CDP', async () => {
    await withBrowser(async (_browser, page) => {
      const started = await download(page, '#blob');
      expect(started.suggestedFilename()).toBe('blob.txt');
      expect(readFileSync(await started.path(), 'utf8')).toBe('made in the page');
    });
  });

  it('a blob: URL the page revoked at once reports why its bytes cannot reach the client', async () => {
    await withBrowser(async (_browser, page) => {
      const started = await download(page, '#blob-revoked');
      expect(await started.failure()).toMatch(/blob: URL \(gone\.txt\).*revoked/);
      await expect(started.saveAs(join(dir, 'gone.txt'))).rejects.toThrow(
        /download\.saveAs: .*revoked/,
      );
    });
  });

  it('the drop-in’s downloadsPath fills that folder with every download, named by guid', async () => {
    const folder = mkdtempSync(join(dir, 'drop-in-'));
    const browser = await chromium.launch({ downloadsPath: folder, remote: { api } });
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.goto(home);
      const started = await download(page, '#attachment');
      const path = await started.path();
      expect(path.startsWith(folder)).toBe(true);
      expect(readdirSync(folder)).toContain(path.slice(folder.length + 1));
      expect(sha256(readFileSync(path))).toBe(site.fileSha);
    } finally {
      await browser.close();
    }
  });

  it('another site’s frame with a never-ending octet-stream, nobody listening: nothing is staged on the client', async () => {
    // The bridge stages in os.tmpdir(): this browser's own, so other processes' files do not count.
    const tmp = mkdtempSync(join(dir, 'tmp-'));
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    let browser: Browser;
    try {
      browser = await launchRemote({ api });
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.goto(`${home}endless-frame`, { waitUntil: 'domcontentloaded' });
      await page.waitForTimeout(3000);
      expect(stagedBytes(tmp)).toBe(0);
      // The session's own tab still navigates: nothing of the frame's download held it.
      await page.goto(home);
      expect(await page.title()).toBe('Transfers');
    } finally {
      await browser.close();
    }
  });
});

/** Bytes of every file under `folder`. */
function stagedBytes(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

// Playwright sends the bytes of setInputFiles() itself to a browser that is not on its machine
// (no module of ours is involved); checked here, on the same remote browser and site, because
// docs/remote.md promises it and states its limits.
describe('Playwright uploads on a remote browser', () => {
  async function submit(page: Page) {
    await page.click('#send');
    await page.waitForSelector('#result');
    return JSON.parse((await page.textContent('#result')) ?? '[]');
  }

  it('setInputFiles() with a client path and with a buffer uploads their bytes', async () => {
    const path = join(dir, 'upload.bin');
    const bytes = patternBytes(1024 * 1024 + 7, 3);
    writeFileSync(path, bytes);
    await withBrowser(async (_browser, page) => {
      await page.goto('http://files.test/upload');
      await page.setInputFiles('#file', path);
      expect(await submit(page)).toEqual([
        {
          name: 'upload.bin',
          type: 'application/octet-stream',
          size: bytes.length,
          sha256: sha256(bytes),
        },
      ]);
      await page.goto('http://files.test/upload');
      const buffer = Buffer.from('from a buffer');
      await page.setInputFiles('#file', { name: 'memo.txt', mimeType: 'text/plain', buffer });
      expect(await submit(page)).toEqual([
        { name: 'memo.txt', type: 'text/plain', size: 13, sha256: sha256(buffer) },
      ]);
    });
  });

  it('a client file over Playwright’s 50 MB limit is refused with Playwright’s clear error', async () => {
    const path = join(dir, 'huge.bin');
    writeFileSync(path, Buffer.alloc(50 * 1024 * 1024 + 1));
    await withBrowser(async (_browser, page) => {
      await page.goto('http://files.test/upload');
      await expect(page.setInputFiles('#file', path)).rejects.toThrow(
        /Cannot transfer files larger than 50Mb to a browser not co-located with the server/,
      );
    });
  });
});
