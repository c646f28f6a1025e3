import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { client } from './helpers/emulator.js';
import { type LocalSite, publishLocalSite, startLocalSite } from './helpers/local-site.js';

let emu: EmulatorHandle;
let site: LocalSite;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  [emu, site] = await Promise.all([startEmulator({ ffmpegPath: false }), startLocalSite()]);
  site = await publishLocalSite(emu, site);
  api = client(emu.url, emu.token);
});
afterAll(async () => {
  await emu?.close();
  await site?.close();
});

/**
 * Chromium browser processes (its main process, not a renderer or helper: no `--type=`)
 * among this process's descendants: the emulator runs in it, sandboxed (under bwrap) or not.
 */
function browserProcessesBelowUs(): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone since the listing.
    }
  }
  const below = [process.pid];
  for (let i = 0; i < below.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === below[i]) below.push(pid);
  }
  return below.slice(1).filter((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return (
        !basename(argv[0] ?? '').includes('bwrap') &&
        argv.some((arg) => arg.startsWith('--remote-debugging-port=')) &&
        !argv.some((arg) => arg.startsWith('--type='))
      );
    } catch {
      return false;
    }
  });
}

/** The status a websocket upgrade of `path` is answered with (101 when it is accepted). */
function upgradeStatus(origin: string, path: string, headers: Record<string, string>) {
  return new Promise<number>((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port: new URL(origin).port,
      path,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.on('error', reject);
    req.end();
  });
}

async function createSession(body: Record<string, unknown> = {}) {
  const started = performance.now();
  const res = await api('POST', '/sessions', {
    body: { proxy_password: emu.proxyPassword, ...body },
  });
  expect(res.status, res.text).toBe(200);
  return {
    ...(res.body.data as { id: string; cdp_url: string; status: string }),
    ms: performance.now() - started,
  };
}

describe('sessions on real Chromium', () => {
  it('connects Playwright over cdp_url, navigates a local page, and DELETE leaves no Chromium', async () => {
    const session = await createSession();
    console.info(`create latency: ${session.ms.toFixed(0)} ms`);
    const browser = await chromium.connectOverCDP(session.cdp_url);
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${site.origin}/`);
    expect(await page.textContent('#title')).toBe('Hello emulator');
    const pages = (await api('GET', `/sessions/${session.id}/pages`)).body.data;
    expect(pages).toContainEqual(
      expect.objectContaining({ type: 'page', url: `${site.origin}/`, title: 'Local test page' }),
    );
    expect((await emu.admin.state()).chromiumProcesses).toBe(1);
    expect((await api('DELETE', `/sessions/${session.id}`)).body).toEqual({
      data: { status: 'success' },
    });
    expect((await emu.admin.state()).chromiumProcesses).toBe(0);
    expect((await emu.admin.state()).runningSessions).toBe(0);
    await browser.close().catch(() => {});
  });

  it('survives hostile upgrades and a rebinding Host, and Playwright still drives the session', async () => {
    const session = await createSession();
    const cdp = new URL(session.cdp_url);
    const token = cdp.searchParams.get('token')!;
    const nonAscii = encodeURIComponent('\u00e9'.repeat(token.length));
    const { port } = new URL(emu.url);
    const hostile: [string, Record<string, string>, number][] = [
      ['//', {}, 400],
      ['/cdp/%E0%A4%A?token=x', {}, 400],
      [`${cdp.pathname}?token=${nonAscii}`, {}, 401],
      [`${cdp.pathname}?token=${token}`, { host: `rebind.attacker.example:${port}` }, 403],
      [`${cdp.pathname}?token=${token}`, { origin: 'https://attacker.example' }, 403],
    ];
    for (const [path, headers, status] of hostile) {
      expect(await upgradeStatus(emu.url, path, headers), path).toBe(status);
    }
    const browser = await chromium.connectOverCDP(session.cdp_url);
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(`${site.origin}/`);
    expect(await page.textContent('#title')).toBe('Hello emulator');
    await browser.close().catch(() => {});
    await api('DELETE', `/sessions/${session.id}`);
  });

  it('connects Puppeteer with browserWSEndpoint set to cdp_url', async () => {
    const session = await createSession();
    const browser = await puppeteer.connect({
      browserWSEndpoint: session.cdp_url,
      defaultViewport: null,
    });
    const [page] = await browser.pages();
    const target = page ?? (await browser.newPage());
    await target.goto(`${site.origin}/`);
    expect(await target.$eval('#title', (el) => el.textContent)).toBe('Hello emulator');
    await browser.disconnect();
    await api('DELETE', `/sessions/${session.id}`);
    expect((await emu.admin.state()).chromiumProcesses).toBe(0);
  });

  it('serves a debugger address and a live view while running, and closes the address at the end', async () => {
    const session = await createSession();
    const connection = (await api('GET', `/sessions/${session.id}/connection`)).body.data;
    expect(connection.debugger_address).toMatch(/^127\.0\.0\.1:\d+$/);
    const version = await fetch(`http://${connection.debugger_address}/json/version`);
    expect(version.status).toBe(200);
    const live = await fetch(connection.live_view_url);
    expect(live.status).toBe(200);
    await live.body?.cancel();
    await api('DELETE', `/sessions/${session.id}`);
    await expect(fetch(`http://${connection.debugger_address}/json/version`)).rejects.toThrow();
  });

  it('refuses the CDP websocket with a wrong access token', async () => {
    const session = await createSession();
    const forged = session.cdp_url.replace(/token=[^&]+/, 'token=forged-token-value');
    await expect(chromium.connectOverCDP(forged, { timeout: 5000 })).rejects.toThrow();
    await api('DELETE', `/sessions/${session.id}`);
  });

  it('runs every page action through REST', async () => {
    const { id } = await createSession();
    const tool = (name: string, body: Record<string, unknown> = {}) =>
      api('POST', `/tools/${name}`, { body: { session_id: id, ...body } });
    expect((await tool('navigate', { url: `${site.origin}/` })).body.data).toEqual({
      status: 'ok',
    });
    expect((await tool('content')).body.data.content).toContain('Hello emulator');
    const shot = (await tool('screenshot')).body.data;
    expect(shot.format).toBe('png');
    expect(Buffer.from(shot.screenshot, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const pdf = (await tool('pdf')).body.data;
    expect(pdf.format).toBe('pdf');
    expect(Buffer.from(pdf.pdf, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    expect((await tool('execute-code', { code: '[1, "two", {three: 3}]' })).body.data).toEqual({
      result: [1, 'two', { three: 3 }],
    });
    expect((await tool('execute-code', { code: 'Promise.resolve(6 * 7)' })).body.data).toEqual({
      result: 42,
    });
    const action = (name: string, body: Record<string, unknown>) =>
      api('POST', `/sessions/${id}/${name}`, { body });
    expect((await action('type', { selector: '#name', text: 'Ada' })).body.data).toEqual({
      status: 'ok',
    });
    expect((await action('click', { selector: '#go' })).body.data).toEqual({ status: 'ok' });
    expect(
      (await tool('execute-code', { code: 'document.getElementById("title").textContent' })).body
        .data.result,
    ).toBe('clicked:Ada');
    expect((await action('scroll', { x: 0, y: 1200 })).body.data).toEqual({ status: 'ok' });
    expect(
      (await tool('execute-code', { code: 'window.scrollY' })).body.data.result,
    ).toBeGreaterThan(0);
    const missing = await action('click', { selector: '#does-not-exist' });
    expect(missing.status).toBe(400);
    const thrown = await tool('execute-code', { code: 'throw new Error("boom")' });
    expect(thrown.status).toBe(400);
    await api('DELETE', `/sessions/${id}`);
    expect((await tool('content')).status).toBe(409);
  });

  it('ends a session on the idle timeout via the emulator clock and kills its Chromium', async () => {
    const { id } = await createSession({ idle_timeout_minutes: 1 });
    await emu.admin.advanceClock(61_000);
    await expect
      .poll(async () => (await emu.admin.state()).chromiumProcesses, { timeout: 10_000 })
      .toBe(0);
    expect((await api('GET', `/sessions/${id}`)).body.data.status).toBe('ended');
  });

  it('ends a session whose Chromium is killed from outside', async () => {
    // No session id is in any argv (issue 27): the session's Chromium is the browser process
    // (no `--type=`) below this process that was not there before the session started.
    const before = new Set(browserProcessesBelowUs());
    const { id } = await createSession();
    const started = browserProcessesBelowUs().filter((pid) => !before.has(pid));
    expect(started).toHaveLength(1);
    process.kill(started[0]!, 'SIGKILL');
    await expect
      .poll(async () => (await api('GET', `/sessions/${id}`)).body.data.status, { timeout: 10_000 })
      .toBe('ended');
    await expect
      .poll(async () => (await emu.admin.state()).chromiumProcesses, { timeout: 10_000 })
      .toBe(0);
  });

  it('runs 10 concurrent sessions and ends them all', async () => {
    const started = performance.now();
    const sessions = await Promise.all(Array.from({ length: 10 }, () => createSession()));
    const allUp = performance.now() - started;
    console.info(
      `10 concurrent creates: ${allUp.toFixed(0)} ms (slowest ${Math.max(...sessions.map((s) => s.ms)).toFixed(0)} ms)`,
    );
    expect(new Set(sessions.map((s) => s.id)).size).toBe(10);
    const state = await emu.admin.state();
    expect(state.runningSessions).toBe(10);
    expect(state.chromiumProcesses).toBe(10);
    const contents = await Promise.all(
      sessions.map((s) =>
        api('POST', '/tools/execute-code', { body: { session_id: s.id, code: '1 + 1' } }),
      ),
    );
    expect(contents.map((c) => c.body.data?.result)).toEqual(Array(10).fill(2));
    await Promise.all(sessions.map((s) => api('DELETE', `/sessions/${s.id}`)));
    expect((await emu.admin.state()).chromiumProcesses).toBe(0);
  });
});

describe('startEmulator close()', () => {
  it('ends every running session and leaves no Chromium process', async () => {
    // A temp dir of this test's own, so that only this emulator's Chromium processes are
    // counted, not those of whatever else runs on the machine.
    const ownTmp = mkdtempSync(join(tmpdir(), 'rb-end-all-'));
    const previousTmp = process.env.TMPDIR;
    process.env.TMPDIR = ownTmp;
    const local = await startEmulator({ ffmpegPath: false }).finally(() => {
      if (previousTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmp;
    });
    const call = client(local.url, local.token);
    for (let i = 0; i < 2; i++) {
      const res = await call('POST', '/sessions', {
        body: { proxy_password: local.proxyPassword },
      });
      expect(res.status).toBe(200);
    }
    expect((await local.admin.state()).chromiumProcesses).toBe(2);
    const { execFileSync } = await import('node:child_process');
    // Counted from the OS, not from the emulator's own bookkeeping: every process whose command
    // line names this test's temp dir (a sandbox's bwrap binds the session's dirs from there; an
    // unsandboxed Chromium has its profile there).
    const count = () =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes(ownTmp)).length;
    expect(count()).toBeGreaterThan(0);
    await local.close();
    expect(count()).toBe(0);
    await expect(fetch(`${local.url}/_emulator/state`)).rejects.toThrow();
    rmSync(ownTmp, { recursive: true, force: true });
  });
});
