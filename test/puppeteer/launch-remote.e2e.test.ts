import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { clearPreflightCache } from '../../src/launch/preflight.js';
import { connectRemote, LaunchError, launchRemote, sessionOf } from '../../src/puppeteer/index.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { eventually } from '../helpers/pages.js';

// No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
const env = useEmulatorAndSite({ ffmpegPath: false });
let api: BrowserApi;
let token: string;

const running = async () => (await env.emu.admin.state()).runningSessions;

afterEach(async () => {
  await api?.close();
  clearPreflightCache();
});

async function freshApi() {
  const account = await env.emu.admin.createAccount({});
  token = account.token;
  api = new BrowserApi({
    baseUrl: env.emu.url,
    token: account.token,
    proxyPassword: account.proxyPassword,
  });
  return api;
}

describe('launchRemote (Puppeteer)', () => {
  it('returns a native Browser with the remote window size (defaultViewport null)', async () => {
    await freshApi();
    const browser = await launchRemote({ api, country: 'us' });
    try {
      const [page] = await browser.pages();
      await page!.goto(env.site.url('/form'));
      await page!.type('#q', 'shoes');
      await page!.click('#go');
      expect(await page!.title()).toBe('Sent shoes');
      expect(page!.viewport()).toBeNull();
      expect(sessionOf(browser).config.country).toBe('us');
    } finally {
      await browser.close();
    }
    expect(await running()).toBe(0);
  });

  it('deletes the session exactly once across close(), asyncDispose and the disconnect event', async () => {
    await freshApi();
    const end = vi.spyOn(api.sessions, 'end');
    const browser = await launchRemote({ api });
    {
      await using _disposable = browser;
      await browser.close();
      await browser.close();
    }
    expect(end).toHaveBeenCalledTimes(1);
    expect(await running()).toBe(0);
  });

  it('answers the commands already sent before it ends the session: a context closed just before close()', async () => {
    // As Crawlee's incognito pages do: the page closes, its context's close() is on the wire
    // when the crawl's end closes the browser. A local close() lets it be answered first.
    await freshApi();
    const browser = await launchRemote({ api });
    const context = await browser.createBrowserContext();
    await context.newPage();
    const contextClosed = context.close();
    await browser.close();
    await expect(contextClosed).resolves.toBeUndefined();
    expect(await running()).toBe(0);
  });

  it('deletes the session through Symbol.asyncDispose alone (await using, typed)', async () => {
    await freshApi();
    const end = vi.spyOn(api.sessions, 'end');
    {
      await using browser = await launchRemote({ api });
      expect(browser.connected).toBe(true);
      expect(await running()).toBe(1);
    }
    expect(end).toHaveBeenCalledTimes(1);
    expect(await running()).toBe(0);
  });

  it('disconnect() detaches without deleting, for a later connectRemote', async () => {
    await freshApi();
    const browser = await launchRemote({ api });
    const id = sessionOf(browser).id;
    await browser.disconnect();
    expect(await running()).toBe(1);
    const again = await connectRemote(id, { api });
    await again.close();
    expect(await running()).toBe(0);
  });

  it('cleans up when the session is ended remotely', async () => {
    await freshApi();
    const end = vi.spyOn(api.sessions, 'end');
    const browser = await launchRemote({ api });
    const other = new BrowserApi({ baseUrl: env.emu.url, token });
    await other.sessions.end(sessionOf(browser).id);
    await other.close();
    await eventually(() => !browser.connected, 10_000, 'disconnect');
    await eventually(() => end.mock.calls.length === 1, 5000, 'the lease to run');
  });

  it('turns a refused connect (a ws ErrorEvent) into a clean error without the cdp_url, and deletes the session', async () => {
    await freshApi();
    // The emulator refuses the next CDP websocket upgrade, as a dead or misrouted endpoint would.
    await env.emu.admin.injectFault({ path: '/cdp/*', status: 502 });
    const err: any = await launchRemote({ api, timeout: 20_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(/could not connect to session .*the session was deleted/);
    expect(err.cause).toBeInstanceOf(Error);
    for (const text of [
      err.message,
      inspect(err, { depth: 8 }),
      inspect(err.cause, { depth: 8 }),
      JSON.stringify(err),
    ]) {
      expect(text).not.toMatch(/token=(?!\[REDACTED\])/);
      expect(text).not.toContain(token);
    }
    expect(await running()).toBe(0);
  });
});

describe('launchRemote (Puppeteer): creates and the session limit', () => {
  it('deletes the session of a create that outlived the launch timeout, without retrying it', async () => {
    await freshApi();
    await env.emu.admin.injectFault({
      method: 'POST',
      path: '/api/v2/browser/sessions',
      delayMs: 5000,
      afterHandling: true,
    });
    const err: any = await launchRemote({ api, timeout: 2500, preflight: false }).catch((e) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(/while the service was creating the session; it will be deleted/);
    // The create may still be starting its Chromium (a sandbox on isolation 'remote', a loaded
    // machine) when the launch gives up: the one session shows up, and no retry adds another.
    await eventually(
      async () => (await api.sessions.list({ status: 'all' })).length > 0,
      15_000,
      'the late session to be created',
    );
    await eventually(
      async () => (await api.sessions.list({ status: 'running' })).length === 0,
      15_000,
      'the late session to be deleted',
    );
    expect(await api.sessions.list({ status: 'all' })).toHaveLength(1);
  });

  it('reconciles a create whose connection dropped after the service created the session', async () => {
    await freshApi();
    await env.emu.admin.injectFault({
      method: 'POST',
      path: '/api/v2/browser/sessions',
      dropConnection: true,
      afterHandling: true,
    });
    const err: any = await launchRemote({ api, preflight: false }).catch((e) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.message).toMatch(/was ended.*not retried/);
    expect(await api.sessions.list({ status: 'all' })).toHaveLength(1);
    expect(await api.sessions.list({ status: 'running' })).toHaveLength(0);
  });

  it('waits for a free slot on 429 so 2x the session limit all launch', async () => {
    const account = await env.emu.admin.createAccount({ limits: { concurrentSessions: 2 } });
    api = new BrowserApi({
      baseUrl: env.emu.url,
      token: account.token,
      proxyPassword: account.proxyPassword,
    });
    const titles = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const browser = await launchRemote({ api, timeout: 90_000 });
        const [page] = await browser.pages();
        await page!.goto(env.site.url('/'));
        const title = await page!.title();
        await browser.close();
        return title;
      }),
    );
    expect(titles).toEqual(['Home', 'Home', 'Home', 'Home']);
    expect(await api.sessions.list({ status: 'running' })).toHaveLength(0);
    // The limit held: never more than 2 of its sessions running at once.
    const { peakRunningSessions } = await env.emu.admin.account(account.accountId);
    expect(peakRunningSessions).toBeGreaterThanOrEqual(1);
    expect(peakRunningSessions).toBeLessThanOrEqual(2);
  });
});
