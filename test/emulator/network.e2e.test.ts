/**
 * The network model on real Chromium: CDP frames through `cdp_url`, the `debugger_address` and
 * the live view all pay the modelled round trip. Lower bounds only.
 */
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { client } from './helpers/emulator.js';

const RTT = 150;
let emu: EmulatorHandle;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  emu = await startEmulator({ ffmpegPath: false, network: { rttMs: RTT } });
  api = client(emu.url, emu.token);
});
afterAll(async () => {
  await emu?.close();
});

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

describe('a session behind the modelled network', () => {
  it('pays one round trip per CDP call, on cdp_url and on debugger_address, and on the live view', async () => {
    const created = await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } });
    expect(created.status, created.text).toBe(200);
    const { id, cdp_url } = created.body.data as { id: string; cdp_url: string };

    const browser = await chromium.connectOverCDP(cdp_url);
    const page = browser.contexts()[0]!.pages()[0]!;
    const call = await timed(() => page.evaluate(() => 6 * 7));
    expect(call.value).toBe(42);
    expect(call.ms).toBeGreaterThanOrEqual(RTT);

    const connection = (await api('GET', `/sessions/${id}/connection`)).body.data;
    // A fresh connection: the handshake's round trip, then the exchange's.
    const version = await timed(() =>
      fetch(`http://${connection.debugger_address}/json/version`).then((r) => r.json()),
    );
    expect(version.value.webSocketDebuggerUrl).toContain(connection.debugger_address);
    expect(version.ms).toBeGreaterThanOrEqual(2 * RTT);
    const viaDebugger = await chromium.connectOverCDP(`http://${connection.debugger_address}`);
    const debuggerPage = viaDebugger.contexts()[0]!.pages()[0]!;
    const debuggerCall = await timed(() => debuggerPage.evaluate(() => 1 + 1));
    expect(debuggerCall.ms).toBeGreaterThanOrEqual(RTT);

    // The live view URL carries its token in the query: the status path goes before it.
    const statusUrl = new URL(connection.live_view_url);
    statusUrl.pathname += '/status';
    const status = await timed(() => fetch(statusUrl).then((r) => r.json()));
    expect(status.value).toEqual({ status: 'running' });
    expect(status.ms).toBeGreaterThanOrEqual(RTT);

    await viaDebugger.close().catch(() => {});
    await browser.close().catch(() => {});
    expect((await api('DELETE', `/sessions/${id}`)).status).toBe(200);
    expect((await emu.admin.state()).chromiumProcesses).toBe(0);
  });
});
