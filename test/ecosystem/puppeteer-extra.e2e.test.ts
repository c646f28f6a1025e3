/**
 * puppeteer-extra, unmodified, over the drop-in: `addExtra(puppeteer).use(StealthPlugin())`
 * launches (the plugin adds args, ignoreDefaultArgs and a userDataDir on every launch), its
 * page evasions apply, and close() deletes the session.
 */
import { createRequire } from 'node:module';
import { beforeEach, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { puppeteer, sessionOf } from '../../src/puppeteer/index.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';

const require = createRequire(import.meta.url);
const { addExtra } = require('puppeteer-extra') as { addExtra: (p: unknown) => any };
const StealthPlugin = require('puppeteer-extra-plugin-stealth') as () => any;

// No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
const env = useEmulatorAndSite({ ffmpegPath: false });
let api: BrowserApi;
/** Plain strings: puppeteer-extra deep-copies the launch options, which a client instance would not survive. */
let remote: { baseUrl: string; token: string; proxyPassword: string };
const running = async () => (await api.sessions.list({ status: 'running' })).length;

beforeEach(async () => {
  const account = await env.emu.admin.createAccount({});
  remote = { baseUrl: env.emu.url, token: account.token, proxyPassword: account.proxyPassword };
  api = new BrowserApi(remote);
});

async function webdriverFlag(extra: { launch(o: unknown): Promise<any> }) {
  const browser = await extra.launch({ headless: true, remote });
  try {
    expect(await running()).toBe(1);
    const page = await browser.newPage();
    await page.goto(env.site.url('/'));
    return {
      webdriver: await page.evaluate(() => navigator.webdriver),
      session: sessionOf(browser).id,
    };
  } finally {
    await browser.close();
  }
}

describe('puppeteer-extra over the drop-in', () => {
  it('launches with the stealth plugin, applies its evasions, and close() deletes the session', async () => {
    const plain = await webdriverFlag(addExtra(puppeteer));
    // Without the plugin the automation flag shows: the evasion below is the plugin's doing.
    expect(plain.webdriver).toBe(true);
    expect(await running()).toBe(0);

    const stealthy = await webdriverFlag(addExtra(puppeteer).use(StealthPlugin()));
    expect(stealthy.webdriver).toBeUndefined();
    expect(await running()).toBe(0);
    expect((await api.sessions.retrieve(stealthy.session)).status).not.toBe('running');
  });
});
