/**
 * A sandboxed session's DevTools endpoint is a unix socket in its 0700 temp dir, reached
 * directly by the CDP proxy, the debugger address and the runtime's own CDP client: no TCP port
 * of the host leads to its Chromium but the session's `debugger_address` (the shared-machine
 * path, `isolation: 'none'`, is covered by the runtime's and the proxy's own tests).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type EmulatorHandle, startEmulator } from '../../../src/emulator/index.js';
import { probeSandbox } from '../../../src/emulator/runtime/sandbox.js';
import { client } from '../helpers/emulator.js';

/** This process and every process below it (the sandboxes, their Chromium). */
function ownProcessTree(): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid ...`: comm may hold spaces, so split after its closing paren.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Gone since the listing.
    }
  }
  const tree = [process.pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

/** Ports listening on TCP in this network namespace whose socket a process of our tree holds. */
function ownListeningPorts(): number[] {
  const portByInode = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is `<hex ip>:<hex port>`, st 0A is LISTEN, inode is the tenth field.
      if (fields.length < 10 || fields[3] !== '0A') continue;
      portByInode.set(fields[9]!, Number.parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  const ports = new Set<number>();
  for (const pid of ownProcessTree()) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        const port = inode && portByInode.get(inode);
        if (port) ports.add(port);
      } catch {
        // Closed since the listing.
      }
    }
  }
  return [...ports].sort((a, b) => a - b);
}

const sandbox = await probeSandbox();

describe.skipIf(!('bwrap' in sandbox))("a sandboxed session's DevTools endpoint", () => {
  let emu: EmulatorHandle;

  beforeAll(async () => {
    emu = await startEmulator({ ffmpegPath: false, isolation: 'remote' });
    expect(emu.isolation).toBe('remote');
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('opens no TCP port but the debugger address, and the session is usable over cdp_url and debugger_address', async () => {
    const before = ownListeningPorts();
    expect(before).toContain(Number(new URL(emu.url).port));

    const api = client(emu.url, emu.token);
    const created = await api('POST', '/sessions', {
      body: { proxy_password: emu.proxyPassword },
    });
    expect(created.status, created.text).toBe(200);
    const { id, cdp_url: cdpUrl } = created.body.data;
    // A running session, its Chromium sandboxed and driven: not one new TCP listener.
    expect(ownListeningPorts().filter((port) => !before.includes(port))).toEqual([]);

    // The debugger address opens on demand: its own port, and nothing else.
    const connection = await api('GET', `/sessions/${id}/connection`);
    const debuggerAddress: string = connection.body.data.debugger_address;
    const debuggerPort = Number(debuggerAddress.split(':').pop());
    expect(ownListeningPorts().filter((port) => !before.includes(port))).toEqual([debuggerPort]);

    // The cdp_url: Playwright drives the page through the proxy and the socket.
    const browser = await chromium.connectOverCDP(cdpUrl);
    try {
      const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
      await page.setContent('<h1>over the socket</h1>');
      expect(await page.textContent('h1')).toBe('over the socket');
    } finally {
      await browser.close();
    }

    // The debugger address: Chrome's /json surface and a websocket to the browser.
    const version = (await (await fetch(`http://${debuggerAddress}/json/version`)).json()) as {
      Browser: string;
      webSocketDebuggerUrl: string;
    };
    expect(version.Browser).toMatch(/Chrom/);
    expect(version.webSocketDebuggerUrl).toMatch(
      new RegExp(`^ws://${debuggerAddress}/devtools/browser/`),
    );
    const ws = new WebSocket(version.webSocketDebuggerUrl);
    const answer = await new Promise<{ id: number; result: { product: string } }>(
      (resolve, reject) => {
        ws.once('open', () => ws.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' })));
        ws.once('message', (data) => resolve(JSON.parse(String(data))));
        ws.once('error', reject);
      },
    );
    ws.close();
    expect(answer).toMatchObject({ id: 1, result: { product: expect.stringMatching(/Chrom/) } });

    // The runtime's own CDP client: a page action.
    const code = await api('POST', '/tools/execute-code', {
      body: { session_id: id, code: '6 * 7' },
    });
    expect(code.body.data?.result, code.text).toBe(42);
    expect((await api('DELETE', `/sessions/${id}`)).status).toBe(200);
  });
});
