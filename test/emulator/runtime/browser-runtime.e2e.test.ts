import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type BrowserRuntime,
  createBrowserRuntime,
  findChromium,
  findFfmpeg,
} from '../../../src/emulator/runtime/index.js';

function pidGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** The crashed child's Chromium is re-parented to PID 1, which may never reap it. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

describe('browser runtime', () => {
  let runtime: BrowserRuntime;

  beforeAll(async () => {
    runtime = await createBrowserRuntime({ ffmpegPath: false });
  });
  afterAll(async () => {
    await runtime.shutdown();
  });

  it('finds the system Chromium and says why recordings are off without ffmpeg', () => {
    expect(runtime.chromiumPath).toBe(findChromium());
    expect(runtime.recordingsAvailable).toBe(false);
    expect(runtime.recordingsOffReason).toMatch(/ffmpegPath: false/);
    expect(findFfmpeg('/nonexistent/ffmpeg')).toMatchObject({
      path: undefined,
      reason: expect.stringMatching(/apt-get install ffmpeg.*FFMPEG_PATH/),
    });
  });

  it('names what to install when the Chromium path does not exist', async () => {
    await expect(createBrowserRuntime({ chromiumPath: '/nonexistent/chrome' })).rejects.toThrow(
      /Chromium not found at \/nonexistent\/chrome/,
    );
  });

  // Launch time is a benchmark figure (bench/), not a test assertion: a loaded machine stretches it.
  it('launches Chromium and stops it with its whole process group', async () => {
    const browser = await runtime.launch({ sessionId: randomUUID(), record: false });
    expect(runtime.liveProcessCount()).toBe(1);
    expect(browser.chromiumAddress).toEqual({ host: '127.0.0.1', port: expect.any(Number) });
    expect(browser.browserWsPath).toMatch(/^\/devtools\/browser\//);
    expect(await browser.pages()).toEqual([
      expect.objectContaining({ type: 'page', url: 'about:blank' }),
    ]);

    await browser.stop();
    expect(pidGone(browser.pid)).toBe(true);
    expect(runtime.liveProcessCount()).toBe(0);
    await expect(browser.stop()).resolves.toBeUndefined();
  });

  it("puts no session id in any process's command line (ps shows them to every local user)", async () => {
    const sessionId = randomUUID();
    const browser = await runtime.launch({ sessionId, record: false });
    try {
      const group: string[] = [];
      const everywhere: string[] = [];
      for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
        let cmdline: string;
        let stat: string;
        try {
          cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
          stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        } catch {
          continue; // gone meanwhile
        }
        // Fields after the command name: state, ppid, pgrp.
        const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
        if (pgrp === browser.pid) group.push(cmdline);
        everywhere.push(cmdline);
      }
      expect(group.length).toBeGreaterThan(1); // the browser and its helpers
      expect(group.join('\n')).toContain('--user-data-dir=');
      expect(group.filter((line) => line.includes(sessionId))).toEqual([]);
      expect(everywhere.filter((line) => line.includes(sessionId))).toEqual([]);
    } finally {
      await browser.stop();
    }
  });

  it('calls onExit once when Chromium dies on its own, and not after stop', async () => {
    const crashed = vi.fn();
    const browser = await runtime.launch({
      sessionId: randomUUID(),
      record: false,
      onExit: crashed,
    });
    process.kill(-browser.pid, 'SIGKILL');
    await vi.waitFor(() => expect(crashed).toHaveBeenCalledTimes(1));
    await browser.stop();

    const stoppedOnPurpose = vi.fn();
    const other = await runtime.launch({
      sessionId: randomUUID(),
      record: false,
      onExit: stoppedOnPurpose,
    });
    await other.stop();
    await new Promise((r) => setTimeout(r, 100));
    expect(stoppedOnPurpose).not.toHaveBeenCalled();
    expect(crashed).toHaveBeenCalledTimes(1);
  });

  /** A child with a temp dir of its own, so what it leaves there can be listed. */
  function spawnFixture(name: string) {
    const childTmp = mkdtempSync(join(tmpdir(), 'rb-child-'));
    const script = fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TMPDIR: childTmp },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const leftovers = () =>
      readdirSync(childTmp).filter((entry) =>
        /^(remote-browser-emulator-|org\.chromium\.)/.test(entry),
      );
    return {
      child,
      output: () => output,
      exited,
      leftovers,
      dispose: () => rmSync(childTmp, { recursive: true, force: true }),
    };
  }

  it('takes its Chromium and its work dir down with it when the Node process crashes', async () => {
    const fixture = spawnFixture('crash-after-launch.ts');
    try {
      expect(await fixture.exited).not.toBe(0);
      const pid = Number(fixture.output().trim());
      expect(pid).toBeGreaterThan(0);
      await vi.waitFor(() => expect(pidGone(pid) || isZombie(pid)).toBe(true));
      expect(fixture.leftovers()).toEqual([]);
    } finally {
      fixture.dispose();
    }
  });

  it('an emulator ended by SIGTERM it does not handle leaves no data or work dir', async () => {
    const fixture = spawnFixture('emulator-until-signal.ts');
    try {
      await vi.waitFor(() => expect(fixture.output()).toMatch(/\S+\n/), { timeout: 60_000 });
      // The session is running: its Chromium and work dir exist until the signal.
      expect(fixture.leftovers().length).toBeGreaterThan(0);
      fixture.child.kill('SIGTERM');
      expect(await fixture.exited).toBe(null);
      expect(fixture.leftovers()).toEqual([]);
    } finally {
      fixture.dispose();
    }
  });

  it('runs ten sessions at once and shutdown leaves no Chromium', async () => {
    const own = await createBrowserRuntime({ ffmpegPath: false });
    const started = performance.now();
    const browsers = await Promise.all(
      Array.from({ length: 10 }, () => own.launch({ sessionId: randomUUID(), record: false })),
    );
    console.info(`10 concurrent launches took ${(performance.now() - started).toFixed(0)} ms`);
    expect(own.liveProcessCount()).toBe(10);
    const titles = await Promise.all(
      browsers.map((b, i) =>
        b.actions.executeCode(`document.title = 'session ${i}'; document.title`),
      ),
    );
    expect(titles).toEqual(browsers.map((_, i) => `session ${i}`));

    const stopping = performance.now();
    await own.shutdown();
    console.info(`shutdown of 10 took ${(performance.now() - stopping).toFixed(0)} ms`);
    expect(own.liveProcessCount()).toBe(0);
    for (const b of browsers) expect(pidGone(b.pid)).toBe(true);
  });

  it('waits for a launch still starting at shutdown, ends it and leaves its work dir empty', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'runtime-shutdown-test-'));
    const own = await createBrowserRuntime({ ffmpegPath: false, workDir });
    try {
      const launching = own.launch({ sessionId: randomUUID(), record: true });
      await own.shutdown();
      const browser = await launching;
      expect(own.liveProcessCount()).toBe(0);
      expect(pidGone(browser.pid)).toBe(true);
      // Nothing the launch made (its profile, Chromium's temp dir) is left behind it.
      expect(readdirSync(workDir)).toEqual([]);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it('refuses a launch that comes once shutdown began (a create the server took during a close): nothing is made', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'runtime-shutdown-test-'));
    const own = await createBrowserRuntime({ ffmpegPath: false, workDir });
    const shutdown = own.shutdown();
    const late = own.launch({ sessionId: randomUUID(), record: false });
    try {
      await expect(late).rejects.toThrow('the browser runtime is shutting down');
      await shutdown;
      expect(own.liveProcessCount()).toBe(0);
      expect(readdirSync(workDir)).toEqual([]);
    } finally {
      // Without the refusal the late launch starts a Chromium: end it, whatever the test found.
      await late.then(
        (browser) => browser.end(),
        () => {},
      );
      rmSync(workDir, { recursive: true, force: true });
    }
  });
});
