/**
 * What a session's sandbox holds, tried from inside as a page (or a client with the session's
 * CDP, which may navigate anywhere) would, on the default isolation ('remote') and with the
 * emulator running as root, as in CI: the host's secrets are not there, the browser is nobody,
 * the host's DevTools socket is not in the sandbox, a sandbox booted ahead of its session holds
 * the same, and the forwarder's death ends the session with its reason in the emulator's log.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../../src/emulator/index.js';
import { forwarderScript, probeSandbox } from '../../../src/emulator/runtime/sandbox.js';
import { eventually } from '../../helpers/pages.js';
import { client } from '../helpers/emulator.js';

const sandbox = await probeSandbox();

/** Each process's parent pid, as /proc shows them now. */
function parentsNow(): Map<number, number> {
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
  return parents;
}

/** Pids of this process's descendants. */
function descendants(): number[] {
  const parents = parentsNow();
  const tree = [process.pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree.slice(1);
}

/** Pids of this process's descendants whose first argument (after the program) is `script`. */
function descendantsRunning(script: string): number[] {
  return descendants().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[1] === script;
    } catch {
      return false;
    }
  });
}

/**
 * The sandboxes' forwarders below us: those running a session's Chromium, and the spare (booted
 * ahead, no Chromium below it yet).
 */
function forwarders(): { running: number[]; spare: number[] } {
  const parents = parentsNow();
  const all = descendantsRunning('/forwarder.js');
  const hasChild = (pid: number) => [...parents.values()].includes(pid);
  return { running: all.filter(hasChild), spare: all.filter((pid) => !hasChild(pid)) };
}

describe.skipIf(!('bwrap' in sandbox))("a session's sandbox", () => {
  let emu: EmulatorHandle;
  const logged: string[] = [];

  beforeAll(async () => {
    emu = await startEmulator({
      ffmpegPath: false,
      logger: (level, message) => logged.push(`${level} ${message}`),
    });
    expect(emu.isolation).toBe('remote');
  });
  afterAll(async () => {
    await emu?.close();
  });

  async function withPage(run: (page: Page, id: string) => Promise<void>): Promise<void> {
    const api = client(emu.url, emu.token);
    const created = await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } });
    expect(created.status, created.text).toBe(200);
    const browser: Browser = await puppeteer.connect({
      browserWSEndpoint: created.body.data.cdp_url,
    });
    try {
      const [page] = await browser.pages();
      await run(page!, created.body.data.id);
    } finally {
      await browser.disconnect();
      await api('DELETE', `/sessions/${created.body.data.id}`);
    }
  }

  /** What a navigation to `url` shows: the page's text, or the network error. */
  async function open(page: Page, url: string): Promise<string> {
    try {
      await page.goto(url);
    } catch (error) {
      return (error as Error).message;
    }
    // A directory listing is built by the page's script after the load. On busy cores a read
    // once met "Execution context was destroyed" (a CI run): the text is then read again.
    for (let attempt = 1; ; attempt++) {
      try {
        await page.waitForNetworkIdle({ idleTime: 100 });
        return await page.evaluate(() => document.body?.innerText ?? '');
      } catch (error) {
        const message = (error as Error).message;
        if (attempt === 3 || !message.includes('Execution context was destroyed')) return message;
      }
    }
  }

  it("cannot read the host's secrets, as root included: /etc/shadow, /etc/ssh, /etc/sudoers", async () => {
    // The emulator runs as root here (as in CI), where /etc/shadow is readable to the host.
    if (process.getuid?.() === 0) expect(readFileSync('/etc/shadow', 'utf8')).toMatch(/^root:/);
    await withPage(async (page) => {
      for (const path of ['/etc/shadow', '/etc/gshadow', '/etc/ssh/', '/etc/sudoers', '/root/']) {
        expect(await open(page, `file://${path}`), path).toMatch(/ERR_FILE_NOT_FOUND/);
      }
      // What Chromium needs is there: its fonts config.
      expect(await open(page, 'file:///etc/fonts/')).toMatch(/fonts\.conf/);
    });
  });

  it('runs the forwarder and the browser as nobody in a user namespace of their own, without capabilities', async () => {
    await withPage(async () => {
      // Seen from the host: every process of the sandbox maps only uid and gid 65534, and has no
      // effective capability.
      const sandboxed = descendants().filter((pid) => {
        try {
          return /^\s*65534\s/.test(readFileSync(`/proc/${pid}/uid_map`, 'utf8'));
        } catch {
          return false;
        }
      });
      const commands = sandboxed.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      expect(commands.some((command) => command.split('\0')[1] === '/forwarder.js')).toBe(true);
      expect(commands.some((command) => /chrom/i.test(command.split('\0')[0]!))).toBe(true);
      for (const pid of sandboxed) {
        expect(readFileSync(`/proc/${pid}/uid_map`, 'utf8').trim().split(/\s+/)).toEqual([
          '65534',
          String(process.getuid?.() ?? 0),
          '1',
        ]);
        expect(readFileSync(`/proc/${pid}/gid_map`, 'utf8').trim().split(/\s+/)[0]).toBe('65534');
        expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(/^CapEff:\s+0+$/m);
      }
    });
  });

  it('keeps the host DevTools socket out of the sandbox: its /tmp holds the exit only', async () => {
    await withPage(async (page) => {
      const listing = await open(page, 'file:///tmp/');
      expect(listing).toContain('exit.sock');
      expect(listing).not.toContain('devtools.sock');
    });
  });

  it("reads the host's font cache and builds none of its own in its HOME", async () => {
    await withPage(async (page) => {
      // Each session's Chromium used to rebuild fontconfig's cache in its fresh HOME (/tmp).
      if (existsSync('/var/cache/fontconfig')) {
        expect(await open(page, 'file:///var/cache/fontconfig/')).toMatch(/\.cache-\d+/);
      }
      expect(await open(page, 'file:///tmp/.cache/')).not.toContain('fontconfig');
    });
  });

  it('binds in the built forwarder, whose one file imports node built-ins only', () => {
    const script = forwarderScript();
    expect(script).toMatch(/dist\/sandbox-forwarder\.js$/);
    const imports = [...readFileSync(script, 'utf8').matchAll(/^import .* from "([^"]+)";$/gm)];
    expect(imports.map(([, from]) => from).sort()).toEqual(['child_process', 'events', 'net']);
  });

  it('starts the next session in the spare sandbox booted after the last start, which holds as well', async () => {
    await withPage(async () => {});
    // A second after a start, the emulator boots the next session's sandbox ahead of it.
    await eventually(async () => forwarders().spare.length === 1, 20_000, 'a spare sandbox');
    const [spare] = forwarders().spare;
    expect(forwarders().running).toEqual([]);
    await withPage(async (page) => {
      expect(forwarders().running).toEqual([spare]);
      expect(readFileSync(`/proc/${spare}/uid_map`, 'utf8').trim().split(/\s+/)[0]).toBe('65534');
      expect(await open(page, 'file:///etc/shadow')).toMatch(/ERR_FILE_NOT_FOUND/);
      // Its own fresh /tmp: the exit of this session only.
      const listing = await open(page, 'file:///tmp/');
      expect(listing).toContain('exit.sock');
      expect(listing).not.toContain('devtools.sock');
      expect(await open(page, 'http://exit.test/')).toContain('"ip"');
    });
  });

  it('sends nothing out of its own at start: no network time query, no search preconnect, no component check', async () => {
    // Google's hosts on the emulator's internet, served here: whatever Chromium fetches by itself
    // reaches this server through the session's exit.
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.headers.host}${req.url}`);
      res.end();
    });
    server.on('connection', () => seen.push('a connection'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const host of [
        'clients2.google.com',
        'www.google.com',
        'optimizationguide-pa.googleapis.com',
        'update.googleapis.com',
      ]) {
        await emu.admin.publish(host, `http://127.0.0.1:${port}`);
      }
      // The component check went out 0.7 to 2.5 s after a create.
      await withPage(async () => {
        await new Promise((resolve) => setTimeout(resolve, 3_000));
      });
      expect(seen).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('runs no browser UI of its own: no omnibox popup WebUI beside the tab', async () => {
    await withPage(async (page) => {
      const cdp = await page.browser().target().createCDPSession();
      const { targetInfos } = await cdp.send('Target.getTargets', { filter: [{}] });
      expect(targetInfos.filter((t) => t.type === 'browser_ui').map((t) => t.url)).toEqual([]);
      expect(targetInfos.filter((t) => t.type === 'page')).toHaveLength(1);
    });
  });

  it("ends the session with the reason in the log when the sandbox's forwarder is killed", async () => {
    const api = client(emu.url, emu.token);
    const created = await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } });
    const id: string = created.body.data.id;
    const { running } = forwarders();
    expect(running).toHaveLength(1);
    process.kill(running[0]!, 'SIGKILL');
    await eventually(
      async () => (await api('GET', `/sessions/${id}`)).body.data.status !== 'running',
      20_000,
      'the session to end',
    );
    expect((await api('GET', `/sessions/${id}`)).body.data.status).not.toBe('running');
    expect(logged).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^warn session ${id}: the sandbox's forwarder died \\((signal SIGKILL|code \\d+)\\)`,
        ),
      ),
    );
    // And nothing of it is left running.
    await eventually(
      async () => (await emu.admin.state()).chromiumProcesses === 0,
      20_000,
      'no Chromium left',
    );
  });
});
