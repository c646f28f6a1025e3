/**
 * chrome-remote-interface with its default options against a session's two addresses, the way
 * it is used against a local `--remote-debugging-port`: the `debugger_address` as host:port,
 * and the `cdp_url` as the target (the client then asks for `/json/protocol` at the host's root).
 */
import { createRequire } from 'node:module';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { useEmulatorAndSite } from '../helpers/emulator-site.js';
import { eventually } from '../helpers/pages.js';

const CDP: any = createRequire(import.meta.url)('chrome-remote-interface');

// No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
const env = useEmulatorAndSite({ ffmpegPath: false });
let api: BrowserApi;

// A raw CDP client has no tunnel: the session's browser runs as on another machine, so the site
// is published on the emulator's internet and reached by name.
const siteUrl = (path: string) => `http://site.test${path}`;
beforeAll(async () => {
  await env.emu.admin.publish('site.test', env.site.url(''));
});

beforeEach(async () => {
  api = await env.newAccountApi();
});

async function withSession<T>(
  run: (s: { id: string; cdpUrl: string; host: string; port: number }) => Promise<T>,
  body: Record<string, unknown> = {},
): Promise<T> {
  const created = await api.sessions.create(body);
  try {
    const connection = await api.sessions.connection(created.id);
    const [host, port] = connection.debugger_address!.split(':');
    return await run({ id: created.id, cdpUrl: created.cdp_url, host: host!, port: Number(port) });
  } finally {
    await api.sessions.end(created.id).catch(() => {});
  }
}

async function httpStatus(url: string, method = 'GET') {
  const res = await fetch(url, { method });
  return { status: res.status, text: await res.text() };
}

describe('chrome-remote-interface on debugger_address', () => {
  it('connects with default options and uses List, New, Activate, Close, Protocol and Version', async () => {
    await withSession(async ({ host, port }) => {
      const client = await CDP({ host, port });
      try {
        const { result } = await client.Runtime.evaluate({ expression: '6 * 7' });
        expect(result.value).toBe(42);
      } finally {
        await client.close();
      }
      const version = await CDP.Version({ host, port });
      expect(version.Browser).toMatch(/Chrome/);
      expect(version.webSocketDebuggerUrl).toMatch(
        new RegExp(`^ws://${host}:${port}/devtools/browser/`),
      );
      const protocol = await CDP.Protocol({ host, port });
      expect(protocol.domains.some((d: { domain: string }) => d.domain === 'Page')).toBe(true);

      // /json/new answers once the target exists; its navigation commits a moment later (a CI
      // run read 'about:blank' right after), so the page is read once it has loaded.
      const created = await CDP.New({ host, port, url: siteUrl('/') });
      expect(created.type).toBe('page');
      expect(created.webSocketDebuggerUrl).toBe(`ws://${host}:${port}/devtools/page/${created.id}`);
      const listed = await CDP.List({ host, port });
      expect(listed.map((t: { id: string }) => t.id)).toContain(created.id);
      // Every URL handed out points at the debugger address, never at Chromium's own port.
      for (const target of listed) {
        expect(target.webSocketDebuggerUrl).toMatch(new RegExp(`^ws://${host}:${port}/devtools/`));
      }
      // The page-level URL it handed out works.
      const page = await CDP({ host, port, target: created.webSocketDebuggerUrl });
      await page.Runtime.enable();
      const title = async () =>
        (await page.Runtime.evaluate({ expression: 'document.title' })).result.value;
      await eventually(async () => (await title()) === 'Home', 10_000, 'the new page to load');
      expect(await title()).toBe('Home');
      await page.close();

      await CDP.Activate({ host, port, id: created.id });
      await CDP.Close({ host, port, id: created.id });
      await eventually(
        async () =>
          !(await CDP.List({ host, port })).some((t: { id: string }) => t.id === created.id),
        5_000,
        'the closed target to leave the list',
      );
    });
  });

  it("answers like Chrome: 405 for GET /json/new, 404 'No such target id', /json as /json/list", async () => {
    await withSession(async ({ host, port }) => {
      const base = `http://${host}:${port}`;
      expect(await httpStatus(`${base}/json/new?about:blank`)).toEqual({
        status: 405,
        text: 'Using unsafe HTTP verb GET to invoke /json/new. This action supports only PUT verb.',
      });
      expect(await httpStatus(`${base}/json/activate/nope`)).toEqual({
        status: 404,
        text: 'No such target id: nope',
      });
      expect(await httpStatus(`${base}/json/close/nope`)).toEqual({
        status: 404,
        text: 'No such target id: nope',
      });
      const list = JSON.parse((await httpStatus(`${base}/json`)).text);
      expect(list.map((t: { id: string }) => t.id)).toEqual(
        JSON.parse((await httpStatus(`${base}/json/list`)).text).map((t: { id: string }) => t.id),
      );
    });
  });

  it('counts traffic on a page-level websocket it handed out as activity for the idle timeout', async () => {
    await withSession(
      async ({ id, host, port }) => {
        const created = await CDP.New({ host, port, url: 'about:blank' });
        await env.emu.admin.advanceClock(50_000);
        const page = await CDP({ host, port, target: created.webSocketDebuggerUrl });
        await page.Runtime.evaluate({ expression: '1' });
        await page.close();
        // 100 s since the start, 50 s since the page traffic: still running.
        await env.emu.admin.advanceClock(50_000);
        expect((await api.sessions.retrieve(id)).status).toBe('running');
        await env.emu.admin.advanceClock(61_000);
        await eventually(
          async () => (await api.sessions.retrieve(id)).status !== 'running',
          10_000,
          'the idle timeout to end the session',
        );
      },
      { idle_timeout_minutes: 1 },
    );
  });
});

describe('chrome-remote-interface on cdp_url', () => {
  it('connects with the cdp_url as target and default options (protocol from the host root)', async () => {
    await withSession(async ({ cdpUrl }) => {
      const client = await CDP({ target: cdpUrl });
      try {
        const { targetInfos } = await client.Target.getTargets();
        expect(targetInfos.some((t: { type: string }) => t.type === 'page')).toBe(true);
      } finally {
        await client.close();
      }
    });
  });

  it('serves the whole /json surface under the cdp_url path, token-checked', async () => {
    await withSession(async ({ id, cdpUrl }) => {
      const url = new URL(cdpUrl);
      const token = url.searchParams.get('token')!;
      const options = {
        host: url.hostname,
        port: Number(url.port),
        // /json/x?query → /cdp/<id>/json/x?token=...&query
        alterPath: (path: string) => {
          const [p, q] = path.split(/\?(.*)/s);
          return `/cdp/${id}${p}?token=${encodeURIComponent(token)}${q ? `&${q}` : ''}`;
        },
      };
      const protocol = await CDP.Protocol(options);
      expect(protocol.version.major).toBe('1');
      const version = await CDP.Version(options);
      expect(version.webSocketDebuggerUrl).toBe(cdpUrl);
      const created = await CDP.New({ ...options, url: siteUrl('/') });
      expect(created.webSocketDebuggerUrl).toBe(
        `ws://${url.host}/cdp/${id}/devtools/page/${created.id}?token=${encodeURIComponent(token)}`,
      );
      const page = await CDP({ target: created.webSocketDebuggerUrl, local: true });
      const href = async () =>
        (await page.Runtime.evaluate({ expression: 'location.href' })).result.value;
      await eventually(async () => (await href()) === siteUrl('/'), 10_000, 'the new page to load');
      expect(await href()).toBe(siteUrl('/'));
      await page.close();
      expect((await CDP.List(options)).map((t: { id: string }) => t.id)).toContain(created.id);
      await CDP.Activate({ ...options, id: created.id });
      await CDP.Close({ ...options, id: created.id });

      const noToken = await httpStatus(`http://${url.host}/cdp/${id}/json/list`);
      expect(noToken.status).toBe(401);
      expect(noToken.text).not.toContain(token);
    });
  });
});
