import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../../src/emulator/index.js';
import { client } from '../helpers/emulator.js';
import { type LocalSite, publishLocalSite, startLocalSite } from '../helpers/local-site.js';

let emu: EmulatorHandle;
let site: LocalSite;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  [emu, site] = await Promise.all([startEmulator({ ffmpegPath: false }), startLocalSite()]);
  // A raw CDP client: the session's browser reaches the site by its name on the emulator's internet.
  site = await publishLocalSite(emu, site);
  api = client(emu.url, emu.token);
});
afterEach(async () => {
  await emu.admin.setFlaky(null);
  await emu.admin.reset();
});
afterAll(async () => {
  await emu?.close();
  await site?.close();
});

async function createSession(): Promise<{ id: string; cdp_url: string }> {
  const res = await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function statusOf(id: string): Promise<string> {
  return (await api('GET', `/sessions/${id}`)).body.data.status;
}

function disconnected(browser: { once(event: string, listener: () => void): unknown }) {
  return new Promise<void>((resolve) => browser.once('disconnected', resolve));
}

describe('cutting connections', () => {
  it('drops a Playwright connection while the session keeps running, and connectOverCDP finds the page, its cookie and storage again', async () => {
    const session = await createSession();
    const browser = await chromium.connectOverCDP(session.cdp_url);
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(`${site.origin}/set-cookie`);
    await page.goto(`${site.origin}/kept`);
    await page.evaluate(() => localStorage.setItem('cart', '3 items'));
    const gone = disconnected(browser);

    expect(await emu.admin.cutConnections(session.id)).toEqual({ sessions: 1, sockets: 1 });
    await gone;
    expect(await statusOf(session.id)).toBe('running');
    expect((await emu.admin.state()).connectionCuts).toBe(1);

    const again = await chromium.connectOverCDP(session.cdp_url);
    const context = again.contexts()[0]!;
    expect(context.pages().map((p) => p.url())).toEqual([`${site.origin}/kept`]);
    expect(await context.cookies(site.origin)).toContainEqual(
      expect.objectContaining({ name: 'remembered', value: 'yes' }),
    );
    expect(await context.pages()[0]!.evaluate(() => localStorage.getItem('cart'))).toBe('3 items');
    await again.close();
  });

  it('drops a Puppeteer connection while the session keeps running, and connect finds the page and its cookie again', async () => {
    const session = await createSession();
    const browser = await puppeteer.connect({
      browserWSEndpoint: session.cdp_url,
      defaultViewport: null,
    });
    const [page] = await browser.pages();
    await page!.goto(`${site.origin}/set-cookie`);
    await page!.goto(`${site.origin}/kept`);
    const gone = disconnected(browser);

    await emu.admin.cutConnections(session.id);
    await gone;
    expect(await statusOf(session.id)).toBe('running');

    const again = await puppeteer.connect({
      browserWSEndpoint: session.cdp_url,
      defaultViewport: null,
    });
    const pages = await again.pages();
    expect(pages.map((p) => p.url())).toEqual([`${site.origin}/kept`]);
    const cookies = await again.cookies();
    expect(cookies).toContainEqual(expect.objectContaining({ name: 'remembered', value: 'yes' }));
    await again.disconnect();
  });

  it("cuts the debugger_address's websockets too, and every session's when no id is given", async () => {
    const [one, two] = await Promise.all([createSession(), createSession()]);
    const viaProxy = await chromium.connectOverCDP(one.cdp_url);
    const detail = (await api('GET', `/sessions/${two.id}/connection`)).body.data;
    const viaDebugger = await chromium.connectOverCDP(`http://${detail.debugger_address}`);
    const gone = Promise.all([disconnected(viaProxy), disconnected(viaDebugger)]);

    expect(await emu.admin.cutConnections()).toEqual({ sessions: 2, sockets: 2 });
    await gone;
    expect([await statusOf(one.id), await statusOf(two.id)]).toEqual(['running', 'running']);
    expect((await emu.admin.state()).runningSessions).toBe(2);
  });

  it('refuses to cut a session that is not running', async () => {
    await expect(emu.admin.cutConnections('no-such-session')).rejects.toThrow(/404/);
  });

  it('in flaky mode cuts connections at random while every session keeps running', async () => {
    const session = await createSession();
    const browser = await chromium.connectOverCDP(session.cdp_url);
    const gone = disconnected(browser);
    await emu.admin.setFlaky(50);
    expect((await emu.admin.state()).flakyMeanIntervalMs).toBe(50);

    await gone;
    await emu.admin.setFlaky(null);
    expect((await emu.admin.state()).flakyMeanIntervalMs).toBeNull();
    expect((await emu.admin.state()).connectionCuts).toBeGreaterThanOrEqual(1);
    expect(await statusOf(session.id)).toBe('running');
  });
});
