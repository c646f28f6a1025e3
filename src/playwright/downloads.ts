/**
 * Playwright's `Download` on a remote browser. Playwright hears "completed" from the browser and
 * then copies the file from its artifacts folder on the client (`saveAs`, `path`,
 * `createReadStream`), where no file is, since the browser saved it on its own machine. The
 * download bridge (remote-cdp/downloads.ts) brings the bytes over CDP; this file makes each
 * `Download` wait for them: its methods are patched on the instance (as `close()` is on the
 * browser, never a Proxy) to first put the bytes at the path Playwright reads, then call
 * Playwright's own method.
 */
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { nodePath } from '../http/node-builtins.js';
import type { RemoteDownloads, RemoteDownloadsOptions } from '../remote-cdp/downloads.js';

/**
 * The download bridge's options for a Playwright browser (openRemoteFeatures() starts it on the
 * features' own connection, alongside the connect). `downloadsPath` (the drop-in's option of
 * that name): every download's file also lands there, named by its guid as with a local
 * browser; the connect passes it to Playwright as `artifactsDir`.
 */
export function downloadOptions(
  downloadsPath?: string,
  maxDownloadBytes?: number,
): RemoteDownloadsOptions {
  return {
    policy: 'allowAndName',
    ...(maxDownloadBytes !== undefined ? { maxDownloadBytes } : {}),
    // Paused only while a download can be received (see Receivers): a navigation pays nothing.
    receiving: downloadsPath !== undefined,
    ...(downloadsPath !== undefined
      ? { placement: { folder: downloadsPath, naming: 'guid' as const } }
      : {}),
  };
}

/**
 * Brings the downloads of a freshly connected remote browser to the client: makes every
 * `Download` of its pages wait for the bytes `downloads` (started with downloadOptions())
 * brings over.
 */
export async function startDownloads(
  browser: Browser,
  started: Promise<RemoteDownloads | undefined>,
  downloadsPath?: string,
): Promise<void> {
  const downloads = await started;
  if (!downloads) return;
  // Playwright's connect set its own download folder, alongside the bridge's: the bridge's wins.
  downloads.applyBehavior();
  bridgeDownloads(browser, downloads, new Receivers(downloads, downloadsPath !== undefined));
}

/** Makes every Download of `browser`'s pages, present and future, wait for its bytes. */
function bridgeDownloads(browser: Browser, downloads: RemoteDownloads, receivers: Receivers): void {
  const contexts = new WeakSet<BrowserContext>();
  const follow = (context: BrowserContext) => {
    if (contexts.has(context)) return;
    contexts.add(context);
    for (const page of context.pages()) followPage(page, downloads, receivers);
    context.on('page', (page) => followPage(page, downloads, receivers));
  };
  for (const context of browser.contexts()) follow(context);
  const { newContext } = browser;
  // An own property shadows the prototype's (and any guard installed before); Playwright's
  // newPage() calls this.newContext(), so pages of browser.newPage() are followed too.
  browser.newContext = async function newContextWithDownloads(this: Browser, ...args) {
    const context = await newContext.apply(browser, args);
    follow(context);
    return context;
  };
}

/**
 * Whether anyone can receive a download: `downloadsPath`, or a `download` listener of the
 * user's on a page (`page.on('download')`, `page.waitForEvent('download')`, …; Playwright's
 * emitter announces each with `newListener`, synchronously, so document responses are paused
 * before the user's next command reaches the browser). Without one, no document is paused.
 */
interface ListenerEvents {
  on(event: 'newListener' | 'removeListener', listener: (event: string | symbol) => void): unknown;
}

class Receivers {
  readonly #downloads: RemoteDownloads;
  readonly #always: boolean;
  /** Each followed page and the number of `download` listeners that are not the bridge's. */
  readonly #pages = new Map<Page, number>();

  constructor(downloads: RemoteDownloads, always: boolean) {
    this.#downloads = downloads;
    this.#always = always;
  }

  follow(page: Page): void {
    const count = (change: number) => {
      if (!this.#pages.has(page)) return;
      this.#pages.set(page, Math.max(0, (this.#pages.get(page) ?? 0) + change));
      this.#update();
    };
    this.#pages.set(page, 0);
    // Playwright's client emitter (a copy of Node's) has these events; its typings do not list them.
    const emitter = page as unknown as ListenerEvents;
    emitter.on('newListener', (event) => {
      if (event === 'download') count(1);
    });
    emitter.on('removeListener', (event) => {
      if (event === 'download') count(-1);
    });
    page.once('close', () => {
      this.#pages.delete(page);
      this.#update();
    });
  }

  #update(): void {
    this.#downloads.receive(this.#always || [...this.#pages.values()].some((n) => n > 0));
  }
}

function followPage(page: Page, downloads: RemoteDownloads, receivers: Receivers): void {
  page.on('download', (download) => bridge(download, downloads));
  receivers.follow(page);
}

function bridge(download: Download, downloads: RemoteDownloads): void {
  const { path, saveAs, createReadStream, failure } = download;
  const call = <F extends (...args: never[]) => unknown>(f: F, ...args: Parameters<F>) =>
    f.apply(download, args) as ReturnType<F>;
  // Playwright's own path() resolves once the browser completed, with the path it reads on the
  // client: the folder is Playwright's, the file name the browser's guid.
  const local = async (): Promise<{ file?: string; error?: string }> => {
    let file: string;
    try {
      file = (await call(path)) as string;
    } catch {
      // Failed or canceled in the browser: Playwright's own methods say so.
      return {};
    }
    try {
      await downloads.deliver(nodePath().basename(file), file);
      return { file };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  let arrived: ReturnType<typeof local> | undefined;
  const arrive = () => {
    arrived ??= local();
    return arrived;
  };
  const fail = (method: string, error: string) => new Error(`download.${method}: ${error}`);

  download.path = async () => {
    const { error } = await arrive();
    if (error) throw fail('path', error);
    return call(path);
  };
  download.saveAs = async (to: string) => {
    const { error } = await arrive();
    if (error) throw fail('saveAs', error);
    return call(saveAs, to);
  };
  download.createReadStream = async () => {
    const { error } = await arrive();
    if (error) throw fail('createReadStream', error);
    return call(createReadStream);
  };
  download.failure = async () => {
    const own = await call(failure);
    if (own !== null) return own;
    return (await arrive()).error ?? null;
  };
}
