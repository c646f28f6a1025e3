import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
    expect(browser.chromiumAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(browser.browserWsPath).toMatch(/^\/devtools\/browser\//);
    expect(await browser.pages()).toEqual([
      expect.objectContaining({ type: 'page', url: 'about:blank' }),
    ]);

    await browser.stop();
    expect(pidGone(browser.pid)).toBe(true);
    expect(runtime.liveProcessCount()).toBe(0);
    await expect(browser.stop()).resolves.toBeUndefined();
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

  it('takes its Chromium down with it when the Node process crashes', async () => {
    const script = fileURLToPath(new URL('./fixtures/crash-after-launch.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    const pid = Number(output.trim());
    expect(pid).toBeGreaterThan(0);
    await vi.waitFor(() => expect(pidGone(pid) || isZombie(pid)).toBe(true));
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
});
