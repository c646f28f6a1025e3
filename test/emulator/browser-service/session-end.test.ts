/**
 * How a session ends, as a user of the emulator sees it: the log lines its `logger` gets (start
 * with the pid, end with the reason, a failed start or stop), one end however often it is asked
 * for, retention that forgets the session and deletes its recording file, the publication time of
 * a recording whose encode outlasted the delay, and a reset that waits for ends still in flight.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorOptions } from '../../../src/emulator/options.js';
import type { EndedBrowser } from '../../../src/emulator/runtime/index.js';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';
import type { FakeBrowser } from '../helpers/fake-runtime.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let emu: FakeEmulator | undefined;
/** Holds a test left closed when it failed: opened before the emulator closes, which waits for them. */
const holds: (() => void)[] = [];
afterEach(async () => {
  for (const release of holds.splice(0)) release();
  await emu?.close();
  emu = undefined;
});

async function start(options: EmulatorOptions = {}) {
  const lines: string[] = [];
  emu = await startFakeEmulator({
    logger: (level, message) => lines.push(`${level} ${message}`),
    ...options,
  });
  const local = emu;
  const api = client(local.url, local.token);
  const create = async (body: Record<string, unknown> = {}) => {
    const res = await api('POST', '/sessions', {
      body: { proxy_password: local.proxyPassword, ...body },
    });
    expect(res.status, res.text).toBe(200);
    return res.body.data.id as string;
  };
  const browserOf = (id: string) =>
    local.control.launched.find((b) => b.sessionId === id) as FakeBrowser;
  const recordingFile = (id: string) => join(local.control.recordingDir, `${id}.webm`);
  const status = async (id: string) => (await api('GET', `/sessions/${id}`)).body.data.status;
  return { emu: local, api, lines, create, browserOf, recordingFile, status };
}

/** Holds a browser's end (Chromium slow to stop) until `release()`. */
function holdEnd(browser: FakeBrowser) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  holds.push(release);
  const end = browser.end.bind(browser);
  browser.end = (): Promise<EndedBrowser> => gate.then(end);
  return release;
}

/** Holds every recording's encode until `release()`. */
function holdEncodes(emu: FakeEmulator) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  holds.push(release);
  emu.control.encode = () => gate;
  return release;
}

describe('the log of a session', () => {
  it("logs each start with Chromium's pid and each end with its reason", async () => {
    const { emu, api, lines, create, browserOf, status } = await start({
      defaultLimits: { idleTimeoutMinutes: 10, maxDurationMinutes: 30 },
    });
    const deleted = await create();
    const crashed = await create();
    const idle = await create({ idle_timeout_minutes: 1 });
    const busy = await create({ max_duration_minutes: 2 });
    for (const id of [deleted, crashed, idle, busy]) {
      expect(lines).toContain(`info session ${id} started (pid ${browserOf(id).pid})`);
    }
    await api('DELETE', `/sessions/${deleted}`);
    browserOf(crashed).crash();
    for (let minute = 0; minute < 2; minute++) {
      browserOf(busy).spec.onActivity?.();
      await emu.admin.advanceClock(MINUTE);
    }
    for (const id of [deleted, crashed, idle, busy]) expect(await status(id)).toBe('ended');
    await expect
      .poll(() => lines.filter((l) => l.includes(' ended (')).sort())
      .toEqual(
        [
          `info session ${deleted} ended (deleted)`,
          `info session ${crashed} ended (browser_exited)`,
          `info session ${idle} ended (idle_timeout)`,
          `info session ${busy} ended (max_duration)`,
        ].sort(),
      );
  });

  it('logs why Chromium failed to start and why a stop failed, and the session still ends', async () => {
    const { emu, api, lines, create, browserOf, status } = await start();
    emu.control.failNextLaunch = true;
    expect(
      (await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } })).status,
    ).toBe(502);
    expect(lines.filter((l) => l.includes('failed to start'))).toEqual([
      expect.stringMatching(
        /^error session [0-9a-f-]{36}: Chromium failed to start: Error: fake launch failure$/,
      ),
    ]);
    const id = await create();
    browserOf(id).end = () => Promise.reject(new Error('kill refused'));
    expect((await api('DELETE', `/sessions/${id}`)).status).toBe(200);
    expect(await status(id)).toBe('ended');
    expect(lines).toContain(`error session ${id}: stop failed: Error: kill refused`);
    expect(lines).toContain(`info session ${id} ended (deleted)`);
  });
});

describe('ending a session', () => {
  it('happens once: a second DELETE keeps the first ended_at and one recording', async () => {
    const { emu, api, create } = await start();
    const id = await create();
    await api('DELETE', `/sessions/${id}`);
    const endedAt = (await api('GET', `/sessions/${id}`)).body.data.ended_at;
    await emu.admin.advanceClock(MINUTE);
    await api('DELETE', `/sessions/${id}`);
    expect((await api('GET', `/sessions/${id}`)).body.data.ended_at).toBe(endedAt);
    expect((await api('GET', `/sessions/${id}/recordings`)).body.data).toHaveLength(1);
  });

  it('closes the debugger address it opened, and opens none for an ended session', async () => {
    const { emu, api, create } = await start();
    const id = await create();
    await api('GET', `/sessions/${id}/connection`);
    await api('GET', `/sessions/${id}/connection`);
    expect(emu.control.debuggerAddresses).toEqual([{ sessionId: id, closed: false }]);
    await api('DELETE', `/sessions/${id}`);
    expect(emu.control.debuggerAddresses).toEqual([{ sessionId: id, closed: true }]);
    const ended = await create();
    await api('DELETE', `/sessions/${ended}`);
    await api('GET', `/sessions/${ended}/connection`);
    expect(emu.control.debuggerAddresses).toHaveLength(1);
  });
});

describe('retention', () => {
  it('forgets a session and deletes its recording file 3 days after its end, and no other', async () => {
    const { emu, api, create, recordingFile } = await start();
    const first = await create();
    const second = await create();
    await api('DELETE', `/sessions/${first}`);
    await emu.admin.advanceClock(DAY);
    await api('DELETE', `/sessions/${second}`);
    await emu.admin.advanceClock(MINUTE);
    for (const id of [first, second]) {
      expect((await api('GET', `/sessions/${id}/recordings`)).body.data).toHaveLength(1);
      expect(existsSync(recordingFile(id))).toBe(true);
    }
    expect((await emu.admin.state()).sessions).toBe(2);

    await emu.admin.advanceClock(2 * DAY - MINUTE);
    await expect.poll(() => existsSync(recordingFile(first))).toBe(false);
    expect((await emu.admin.state()).sessions).toBe(1);
    expect(existsSync(recordingFile(second))).toBe(true);
    expect((await api('GET', `/sessions/${second}/recordings`)).body.data).toHaveLength(1);

    await emu.admin.advanceClock(DAY);
    await expect.poll(() => existsSync(recordingFile(second))).toBe(false);
    expect((await emu.admin.state()).sessions).toBe(0);
  });

  it('counts from ended_at even when Chromium took a day of emulator time to stop', async () => {
    const { emu, api, create, browserOf, status } = await start();
    const id = await create();
    const release = holdEnd(browserOf(id));
    const deleting = api('DELETE', `/sessions/${id}`);
    await expect.poll(() => status(id)).toBe('ended');
    await emu.admin.advanceClock(DAY);
    // Still stopping: no page list from a browser on its way out.
    expect((await api('GET', `/sessions/${id}/pages`)).body.data).toEqual([]);
    release();
    expect((await deleting).status).toBe(200);
    await emu.admin.advanceClock(2 * DAY);
    expect((await emu.admin.state()).sessions).toBe(0);
  });

  it('deletes the file of a recording whose session was forgotten while it encoded', async () => {
    const { emu, api, create, recordingFile } = await start();
    const release = holdEncodes(emu);
    const id = await create();
    await api('DELETE', `/sessions/${id}`);
    await emu.admin.advanceClock(MINUTE);
    // The first due listing starts the encode (and waits for it).
    const listing = api('GET', `/sessions/${id}/recordings`);
    await emu.admin.advanceClock(3 * DAY);
    expect((await emu.admin.state()).sessions).toBe(0);
    release();
    // The encode writes its file as soon as the hold ends (microtasks); only then look.
    await new Promise((resolve) => setImmediate(resolve));
    await expect.poll(() => existsSync(recordingFile(id)), { timeout: 10_000 }).toBe(false);
    expect((await listing).body.data).toEqual([]);
  });
});

describe('publication of a recording', () => {
  it('lists a recording whose encode outlasted the delay as soon as the encode ends', async () => {
    const { emu, api, create } = await start();
    const release = holdEncodes(emu);
    const id = await create();
    await api('DELETE', `/sessions/${id}`);
    await emu.admin.advanceClock(60_000);
    const listing = api('GET', `/sessions/${id}/recordings`);
    await sleep(100);
    release();
    expect((await listing).body.data).toHaveLength(1);
  });

  it('lists nothing, without error, for a session that recorded nothing', async () => {
    const { emu, api, create } = await start();
    emu.control.recordingBytes = undefined;
    const id = await create();
    await api('DELETE', `/sessions/${id}`);
    await emu.admin.advanceClock(MINUTE);
    const res = await api('GET', `/sessions/${id}/recordings`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });
});

describe('a reset', () => {
  it('ends every running session, with emulator_reset as the reason, and stops its Chromium', async () => {
    const { emu, lines, create } = await start();
    const ids = [await create(), await create()];
    expect((await emu.admin.state()).chromiumProcesses).toBe(2);
    await emu.admin.reset();
    expect((await emu.admin.state()).chromiumProcesses).toBe(0);
    for (const id of ids) expect(lines).toContain(`info session ${id} ended (emulator_reset)`);
  });

  it('waits for a recording still encoding and for a Chromium still stopping', async () => {
    const { emu, api, create, browserOf, status } = await start();
    const releaseEncode = holdEncodes(emu);
    const encoding = await create();
    await api('DELETE', `/sessions/${encoding}`);
    await emu.admin.advanceClock(MINUTE);
    // A due listing starts its encode; the reset cuts the request, not the encode.
    void api('GET', `/sessions/${encoding}/recordings`).catch(() => {});
    const stopping = await create();
    const releaseEnd = holdEnd(browserOf(stopping));
    const deleting = api('DELETE', `/sessions/${stopping}`);
    await expect.poll(() => status(stopping)).toBe('ended');
    const order: string[] = [];
    const reset = emu.admin.reset().then(() => order.push('reset'));
    // Time for a reset that did not wait to answer; the order below is what is asserted.
    await sleep(300);
    order.push('end released');
    releaseEnd();
    await deleting;
    await sleep(300);
    order.push('encode released');
    releaseEncode();
    await reset;
    expect(order).toEqual(['end released', 'encode released', 'reset']);
  });
});
