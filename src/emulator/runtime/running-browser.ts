/** One session's browser: Chromium, the runtime's CDP connection, page actions, screencast, recording. */
import { rmdir } from 'node:fs/promises';
import { createDebug } from '../../http/debug.js';
import type { CdpConnection } from '../../remote-cdp/cdp-connection.js';
import { connectRuntimeCdp } from './cdp-client.js';
import { type ChromiumProcess, spawnChromium } from './chromium-process.js';
import { CurrentPage } from './current-page.js';
import type { DevtoolsEndpoint } from './devtools-endpoint.js';
import type { IsolatedNetwork, SessionSandbox } from './isolated-network.js';
import { createPageActions } from './page-actions.js';
import { Recorder } from './recorder.js';
import { FORWARDER_MARK } from './sandbox.js';
import type { BootedSandbox, SpareSandbox } from './sandbox-process.js';
import { Screencast } from './screencast.js';
import { type Profile, prepareProfile } from './session-dirs.js';
import type { EndedBrowser, LaunchSpec, RecordingFile, RunningBrowser } from './types.js';

const debug = createDebug('emulator:runtime');

export interface LaunchConfig {
  chromiumPath: string;
  /** Set only when recordings are available. */
  ffmpegPath: string | undefined;
  workDir: string;
  actionTimeoutMs: number;
  recordingFps: number;
  launchTimeoutMs: number;
  /** Set when sessions run sandboxed (`isolation: 'remote'`). */
  sandbox?: SessionSandbox;
  /** The sandbox booted ahead for the next throwaway profile (spareSandbox()). */
  spare?: SpareSandbox<Profile>;
}

export async function launchBrowser(
  spec: LaunchSpec,
  config: LaunchConfig,
): Promise<RunningBrowser> {
  // A throwaway profile starts in the spare sandbox, booted ahead on dirs of its own.
  const spare = spec.userDataDir === undefined ? config.spare?.take() : undefined;
  const profile = spare?.dirs ?? (await prepareProfile(spec.userDataDir, config));
  const network = config.sandbox
    ? await isolateOrUndo(spec, config.sandbox, profile, spare?.sandbox)
    : undefined;
  const { chromium, cdp, currentPage, devtools, browserWsPath } = await startDriven(
    config,
    profile,
    network,
  );
  const { sessionDir, throwawayProfile, removeProfile } = profile;

  const startedAt = Date.now();
  const recorder =
    spec.record && config.ffmpegPath
      ? new Recorder(sessionDir, config.ffmpegPath, config.recordingFps, startedAt)
      : undefined;
  const screencast = new Screencast(cdp, currentPage, (jpeg, at) => recorder?.add(jpeg, at));

  let endedAt: number | undefined;
  let stopping = false;
  void chromium.exited.then(() => {
    endedAt ??= Date.now();
    screencast.stop();
    if (stopping) return;
    const reason = exitReason(chromium, network !== undefined);
    debug(`session ${spec.sessionId}: ${reason}`);
    spec.onExit?.(reason);
  });

  // One outcome per recording, whoever asks first: its encode, or its frames dropped.
  let outcome: Promise<RecordingFile | undefined> | undefined;
  const settle = (encode: boolean) =>
    (outcome ??= encode
      ? encodeRecording(spec.sessionId, sessionDir, recorder, endedAt)
      : discardRecording(sessionDir, recorder));
  const ended: EndedBrowser = {
    recording: () => settle(true),
    discard: () => settle(false).then(() => {}),
  };

  let ending: Promise<EndedBrowser> | undefined;
  const end = async (): Promise<EndedBrowser> => {
    stopping = true;
    endedAt ??= Date.now();
    screencast.stop();
    // A kept profile (store_cache) must reach the disk: Chromium writes cookies and storage
    // lazily and on a clean shutdown, so ask it to close first (bounded) and kill only after.
    if (!throwawayProfile && !chromium.hasExited()) await closeCleanly(cdp, chromium.exited);
    cdp.close();
    // The recording, if ever asked for, is encoded from what is on disk once Chromium is gone.
    await chromium.kill();
    recorder?.seal();
    await network?.close();
    await removeProfile();
    return ended;
  };

  const browser: RunningBrowser = {
    sessionId: spec.sessionId,
    pid: chromium.pid,
    chromiumAddress: devtools,
    browserWsPath,
    actions: createPageActions(cdp, currentPage, {
      timeoutMs: config.actionTimeoutMs,
      onActivity: () => spec.onActivity?.(),
    }),
    pages: async () =>
      (await currentPage.list()).map(({ targetId, title, type, url }) => ({
        id: targetId,
        title,
        type,
        url,
      })),
    onFrame: (listener) => screencast.onFrame(listener),
    lastFrame: () => screencast.lastFrame(),
    // Chromium's exit is the browser's end, whether stopped or on its own.
    ended: chromium.exited,
    hasEnded: chromium.hasExited,
    end: () => {
      ending ??= end();
      return ending;
    },
    // Through `browser.end` (not `end`): the runtime wraps it to learn when the browser is done.
    stop: () => browser.end().then((e) => e.recording()),
  };
  return browser;
}

/** Chromium up, the runtime's CDP connection on it, and a page to act on; nothing left on failure. */
async function startDriven(
  config: LaunchConfig,
  profile: Profile,
  network: IsolatedNetwork | undefined,
): Promise<{
  chromium: ChromiumProcess;
  cdp: CdpConnection;
  currentPage: CurrentPage;
  devtools: DevtoolsEndpoint;
  browserWsPath: string;
}> {
  let chromium: ChromiumProcess;
  try {
    chromium = await spawnChromium(
      config.chromiumPath,
      profile.userDataDir,
      config.launchTimeoutMs,
      profile.tempDir,
      network?.launcher,
    );
  } catch (error) {
    await network?.close();
    await profile.removeProfile();
    throw error;
  }
  let cdp: CdpConnection | undefined;
  // In a sandbox, Chromium's DevTools port is reached through its socket in the session's
  // temp dir; on the shared machine, at its loopback port.
  const printed = new URL(chromium.browserWsUrl);
  const devtools: DevtoolsEndpoint = network?.devtools ?? {
    host: printed.hostname,
    port: Number(printed.port),
  };
  const browserWsPath = printed.pathname;
  try {
    await network?.devtoolsReady(config.launchTimeoutMs);
    cdp = await connectRuntimeCdp(devtools, browserWsPath);
    const currentPage = await CurrentPage.track(cdp);
    await currentPage.get({ create: true });
    return { chromium, cdp, currentPage, devtools, browserWsPath };
  } catch (error) {
    cdp?.close();
    await chromium.kill();
    await network?.close();
    await profile.removeProfile();
    throw new Error(`Chromium started but could not be driven: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The session's exit and DevTools socket; the profile (and the spare sandbox `booted` on it) is
 * removed if they cannot be opened.
 */
async function isolateOrUndo(
  spec: LaunchSpec,
  sandbox: SessionSandbox,
  profile: Profile,
  booted: BootedSandbox | undefined,
): Promise<IsolatedNetwork> {
  try {
    if (!profile.tempDir) {
      throw new Error('no temp dir path short enough for the sandbox sockets was found');
    }
    return await sandbox.isolate(spec, profile.tempDir, profile.userDataDir, booted);
  } catch (error) {
    await booted?.kill();
    await profile.removeProfile();
    throw error;
  }
}

/** The recording once Chromium is gone; undefined when none was made or the encode failed. */
async function encodeRecording(
  sessionId: string,
  sessionDir: string,
  recorder: Recorder | undefined,
  endedAt: number | undefined,
): Promise<RecordingFile | undefined> {
  if (!recorder) return discardRecording(sessionDir, recorder);
  try {
    return await recorder.finish(endedAt ?? Date.now());
  } catch (error) {
    // Ending the session must not fail because the video could not be made.
    debug(`session ${sessionId}: recording failed: ${(error as Error).message}`);
    return discardRecording(sessionDir, recorder);
  }
}

/** The frames removed, and the session's folder with them unless something else lives in it. */
async function discardRecording(
  sessionDir: string,
  recorder: Recorder | undefined,
): Promise<undefined> {
  await recorder?.discard().catch(() => {});
  // Leaves the folder alone if anything else (a kept profile) lives in it.
  await rmdir(sessionDir).catch(() => {});
  return undefined;
}

/** Why a browser ended on its own: the forwarder's own words when it ended the sandbox. */
export function exitReason(chromium: ChromiumProcess, sandboxed: boolean): string {
  const said = chromium.stderrTail().findLast((line) => line.startsWith(FORWARDER_MARK));
  if (said) return `the sandbox ended: ${said.slice(FORWARDER_MARK.length).trim()}`;
  return sandboxed
    ? `the sandbox's forwarder died (${chromium.exitStatus()}): the session's network and DevTools endpoint went with it`
    : `Chromium (pid ${chromium.pid}) exited on its own (${chromium.exitStatus()})`;
}

/** Longest wait for Chromium to shut down cleanly before its process group is killed. */
const CLEAN_CLOSE_GRACE_MS = 5_000;

async function closeCleanly(cdp: CdpConnection, exited: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CLEAN_CLOSE_GRACE_MS);
  });
  // The answer to Browser.close may never come (the socket closes with the browser): wait for the exit.
  const closed = cdp
    .call('Browser.close', undefined, { timeoutMs: CLEAN_CLOSE_GRACE_MS })
    .catch(() => {})
    .then(() => exited);
  await Promise.race([closed, grace]);
  clearTimeout(timer);
}
