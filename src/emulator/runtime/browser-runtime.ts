/** The runtime the control plane holds: finds executables once, launches and tracks browsers. */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findChromium, findFfmpeg } from './find-executables.js';
import type { SessionSandbox } from './isolated-network.js';
import { pidAlive, removeOnExit } from './process-groups.js';
import { type LaunchConfig, launchBrowser } from './running-browser.js';
import { spareSandbox } from './session-dirs.js';
import type { BrowserRuntime, RunningBrowser, RuntimeOptions } from './types.js';

// Ten sessions launching at once on two cores take several seconds each; one alone takes <1 s.
const LAUNCH_TIMEOUT_MS = 30_000;
/** A page action (navigate, screenshot, ...) of one session, unless the options say otherwise. */
const ACTION_TIMEOUT_MS = 15_000;

export async function createBrowserRuntime(
  options: RuntimeOptions = {},
  /** Every session runs sandboxed (`isolation: 'remote'`) when given. */
  sandbox?: SessionSandbox,
): Promise<BrowserRuntime> {
  const chromiumPath = findChromium(options.chromiumPath);
  const ffmpeg = findFfmpeg(options.ffmpegPath);
  // A work dir we made is ours to remove at shutdown; a given one (and its recordings) is kept.
  const ownWorkDir = options.workDir === undefined;
  const workDir = options.workDir
    ? resolve(options.workDir)
    : await mkdtemp(join(tmpdir(), 'remote-browser-emulator-'));
  if (!ownWorkDir) await mkdir(workDir, { recursive: true });
  // A crash or Ctrl-C before shutdown() must not leave the dir (and Chromium's temp dirs in it).
  const forgetWorkDir = ownWorkDir ? removeOnExit(workDir) : () => {};
  const config: LaunchConfig = {
    chromiumPath,
    ffmpegPath: ffmpeg.path,
    workDir,
    actionTimeoutMs: options.actionTimeoutMs ?? ACTION_TIMEOUT_MS,
    recordingFps: options.recordingFps ?? 5,
    launchTimeoutMs: options.launchTimeoutMs ?? LAUNCH_TIMEOUT_MS,
  };
  if (sandbox) {
    config.sandbox = sandbox;
    // The next session's sandbox is booted ahead, once a first session was asked for.
    config.spare = spareSandbox(config, sandbox);
  }

  const browsers = new Set<RunningBrowser>();
  /** Launches in flight: shutdown waits for them, so none makes its dirs in a removed work dir. */
  const launching = new Set<Promise<RunningBrowser>>();
  /** Every pid launched and not yet seen gone; liveProcessCount asks the OS about each. */
  const pids = new Set<number>();
  /** Set by shutdown(): a launch after it would start a Chromium that nothing ends. */
  let shuttingDown = false;

  return {
    recordingsAvailable: ffmpeg.path !== undefined,
    recordingsOffReason: ffmpeg.path === undefined ? ffmpeg.reason : undefined,
    chromiumPath,
    async launch(spec) {
      if (shuttingDown) throw new Error('the browser runtime is shutting down');
      let browser: RunningBrowser;
      const starting = launchBrowser(spec, config);
      launching.add(starting);
      try {
        browser = await starting;
      } finally {
        launching.delete(starting);
        // After this start, not beside it: two cores are busy enough with one Chromium's.
        config.spare?.refill();
      }
      browsers.add(browser);
      pids.add(browser.pid);
      const end = browser.end;
      // Tracked until Chromium is gone: an ended session's recording is its control plane's.
      return Object.assign(browser, { end: () => end().finally(() => browsers.delete(browser)) });
    },
    liveProcessCount() {
      let count = 0;
      for (const pid of pids) {
        if (pidAlive(pid)) count++;
        // Forget it once gone, so a recycled pid is never counted as ours.
        else pids.delete(pid);
      }
      return count;
    },
    async shutdown() {
      shuttingDown = true;
      // A launch that is still starting is ended with the others once it is up.
      await Promise.allSettled(launching);
      await Promise.allSettled([
        // Nothing is encoded for a session the shutdown ends: its frames are dropped.
        ...[...browsers].map((browser) => browser.end().then((ended) => ended.discard())),
        config.spare?.close(),
      ]);
      if (ownWorkDir) await rm(workDir, { recursive: true, force: true });
      forgetWorkDir();
    },
  };
}
