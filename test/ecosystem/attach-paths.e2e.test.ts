/**
 * Every attach path of the spec, each client used as against a local `--remote-debugging-port`
 * and on the default isolation ('remote'): Playwright and Puppeteer on the `cdp_url` and on the
 * `debugger_address` (chrome-remote-interface has its own file,
 * chrome-remote-interface.e2e.test.ts), and Selenium's chromedriver (Debian's
 * `chromium-driver`, the installed Chromium's own version) attached through `debuggerAddress`,
 * driven with its W3C WebDriver HTTP API.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';

const CHROMEDRIVER = process.env.CHROMEDRIVER_PATH ?? '/usr/bin/chromedriver';

const env = useEmulatorAndSite({ ffmpegPath: false });
let api: BrowserApi;

// The session's browser is on another machine: the site is reached by name on the emulator's internet.
const siteUrl = (path: string) => `http://site.test${path}`;
beforeAll(async () => {
  expect(env.emu.isolation).toBe('remote');
  await env.emu.admin.publish('site.test', env.site.url(''));
});
beforeEach(async () => {
  api = await env.newAccountApi();
});

async function withSession(
  run: (s: { id: string; cdpUrl: string; debuggerAddress: string }) => Promise<void>,
): Promise<void> {
  const created = await api.sessions.create({});
  try {
    const connection = await api.sessions.connection(created.id);
    await run({
      id: created.id,
      cdpUrl: created.cdp_url,
      debuggerAddress: connection.debugger_address!,
    });
  } finally {
    await api.sessions.end(created.id).catch(() => {});
  }
}

describe('Playwright', () => {
  it.each(['cdp_url', 'debugger_address'] as const)(
    'attaches on the %s and loads a page',
    async (path) => {
      await withSession(async ({ cdpUrl, debuggerAddress }) => {
        const browser = await chromium.connectOverCDP(
          path === 'cdp_url' ? cdpUrl : `http://${debuggerAddress}`,
        );
        try {
          const page = browser.contexts()[0]!.pages()[0]!;
          await page.goto(siteUrl('/'));
          expect(await page.textContent('h1')).toBe('Welcome');
        } finally {
          await browser.close();
        }
      });
    },
  );
});

describe('Puppeteer', () => {
  it.each(['cdp_url', 'debugger_address'] as const)(
    'attaches on the %s and loads a page',
    async (path) => {
      await withSession(async ({ cdpUrl, debuggerAddress }) => {
        const browser = await puppeteer.connect(
          path === 'cdp_url'
            ? { browserWSEndpoint: cdpUrl }
            : { browserURL: `http://${debuggerAddress}` },
        );
        try {
          const [page] = await browser.pages();
          await page!.goto(siteUrl('/'));
          expect(await page!.$eval('h1', (h1) => h1.textContent)).toBe('Welcome');
        } finally {
          await browser.disconnect();
        }
      });
    },
  );
});

/** A free loopback port for chromedriver (it takes no port 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Driver {
  /** One W3C WebDriver call; resolves with `value`, rejects with the driver's error. */
  call<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

async function startChromedriver(): Promise<Driver> {
  const port = await freePort();
  const child: ChildProcess = spawn(CHROMEDRIVER, [`--port=${port}`], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as { value: any };
    if (!response.ok)
      throw new Error(`${method} ${path}: ${answer.value?.message ?? response.status}`);
    return answer.value as T;
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      if ((await call<{ ready: boolean }>('GET', '/status')).ready) break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    call,
    async stop() {
      child.kill();
      await exited;
    },
  };
}

describe.skipIf(!existsSync(CHROMEDRIVER))('chromedriver (Selenium)', () => {
  it('attaches through debugger_address and drives the page; quit leaves the session running', async () => {
    const driver = await startChromedriver();
    try {
      await withSession(async ({ id, cdpUrl, debuggerAddress }) => {
        const { sessionId } = await driver.call<{ sessionId: string }>('POST', '/session', {
          capabilities: { alwaysMatch: { 'goog:chromeOptions': { debuggerAddress } } },
        });
        const at = (path: string) => `/session/${sessionId}${path}`;
        const element = (found: Record<string, string>) => Object.values(found)[0]!;

        await driver.call('POST', at('/url'), { url: siteUrl('/form') });
        expect(await driver.call('GET', at('/title'))).toBe('Form');
        const input = element(
          await driver.call('POST', at('/element'), { using: 'css selector', value: '#q' }),
        );
        await driver.call('POST', at(`/element/${input}/value`), { text: 'shoes' });
        const button = element(
          await driver.call('POST', at('/element'), { using: 'css selector', value: '#go' }),
        );
        await driver.call('POST', at(`/element/${button}/click`), {});
        expect(await driver.call('GET', at('/title'))).toBe('Sent shoes');

        // A second window, switched to and driven, then closed.
        const first = await driver.call<string>('GET', at('/window'));
        const { handle } = await driver.call<{ handle: string }>('POST', at('/window/new'), {
          type: 'window',
        });
        await driver.call('POST', at('/window'), { handle });
        await driver.call('POST', at('/url'), { url: siteUrl('/') });
        const heading = element(
          await driver.call('POST', at('/element'), { using: 'css selector', value: 'h1' }),
        );
        expect(await driver.call('GET', at(`/element/${heading}/text`))).toBe('Welcome');
        expect(await driver.call<string[]>('GET', at('/window/handles'))).toHaveLength(2);
        await driver.call('DELETE', at('/window'));
        await driver.call('POST', at('/window'), { handle: first });
        expect(await driver.call('GET', at('/title'))).toBe('Sent shoes');

        // Quit detaches from a browser it did not start: the session goes on, still usable.
        await driver.call('DELETE', `/session/${sessionId}`);
        expect((await api.sessions.retrieve(id)).status).toBe('running');
        const browser = await chromium.connectOverCDP(cdpUrl);
        try {
          const titles = await Promise.all(
            browser.contexts().flatMap((context) => context.pages().map((page) => page.title())),
          );
          expect(titles).toContain('Sent shoes');
        } finally {
          await browser.close();
        }
      });
    } finally {
      await driver.stop();
    }
  });
});
