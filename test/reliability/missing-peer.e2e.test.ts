/**
 * Issue 11: with only one peer installed, launchRemote from the other library's entry must fail
 * before any request, not after creating a billed session. A child process hides the peer with a
 * resolve hook (as `npm install` without it would), and a counting proxy is the only origin the
 * child knows.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { type CountingProxy, startCountingProxy } from './counting-proxy.js';
import { privateLedger } from './helpers.js';

const child = new URL('../fixtures/missing-peer-child.ts', import.meta.url).pathname;
const hidePeer = new URL('../fixtures/hide-peer.mjs', import.meta.url).pathname;

let emu: EmulatorHandle;
let proxy: CountingProxy;
let ledger: ReturnType<typeof privateLedger>;

beforeAll(async () => {
  ledger = privateLedger('rb-missing-peer-');
  emu = await startEmulator({ ffmpegPath: false });
  proxy = await startCountingProxy(emu.url);
});
afterAll(async () => {
  await proxy?.close();
  await emu?.close();
  ledger?.restore();
});
beforeEach(() => proxy.reset());

/** Runs the child script with `hidden` unresolvable; resolves with its exit code and output. */
function runChild(lib: 'playwright' | 'puppeteer', hidden: string[]) {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--import', hidePeer, child], {
    env: {
      ...process.env,
      CHILD_LIB: lib,
      HIDE_PEERS: hidden.join(','),
      REMOTE_BROWSER_URL: proxy.url,
      REMOTE_BROWSER_TOKEN: emu.token,
      REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (d) => {
    output += d;
  });
  proc.stderr.on('data', (d) => {
    output += d;
  });
  return new Promise<{ code: number | null; output: string }>((resolve) =>
    proc.once('exit', (code) => resolve({ code, output })),
  );
}

describe('launchRemote with its peer library missing', () => {
  it('launches normally when nothing is hidden (control: the child and the proxy work)', async () => {
    const run = await runChild('playwright', ['puppeteer-core']);
    expect(run.output).toContain('launched');
    expect(run.code).toBe(0);
    expect(proxy.seen).toContain('POST /api/v2/browser/sessions');
  });

  it.each([
    ['playwright', 'playwright-core'],
    ['puppeteer', 'puppeteer-core'],
  ] as const)('remote-browser/%s without %s fails before any request', async (lib, peer) => {
    const before = (await emu.admin.state()).sessions;
    const run = await runChild(lib, [peer]);
    expect(run.output).toContain(`launchRemote: ${peer} is not installed`);
    expect(run.code).toBe(2);
    expect(proxy.seen, 'requests that reached the emulator').not.toContain(
      'POST /api/v2/browser/sessions',
    );
    expect(proxy.seen).toEqual([]);
    expect((await emu.admin.state()).sessions).toBe(before);
  });
});
