/** Spawning one headless Chromium and reading its DevTools endpoint from stderr. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killGroup, trackGroup, waitForGroupGone } from './process-groups.js';

/**
 * Every flag that could make Chromium reach the network on its own is here: the machine may
 * have none, and an emulator must not phone home. The window size fixes the viewport the
 * screencast and recordings are sized for.
 */
export function chromiumArgs(userDataDir: string): string[] {
  const args = [
    '--headless',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--mute-audio',
    '--password-store=basic',
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    `--user-data-dir=${userDataDir}`,
    '--window-size=1280,720',
    // As an unhardened machine: English, and the host's own time zone (nothing sets TZ).
    '--lang=en-US',
    // What Chromium fetches at start despite the switches above (Playwright turns off the same):
    // a network time query to clients2.google.com, optimization hints, AI mode eligibility and a
    // preconnect to the search engine. In a sandbox each one went through the session's exit in
    // the emulator's process right while the client connected (P10's connect: 1.7x 'none').
    // And what it runs for a window it has not got: the omnibox popup's WebUI
    // (chrome://omnibox-popup.top-chrome/, in a renderer of its own), a third of a session's CPU
    // in its first 3 s (0.68 s without it against 1.0 s, on 2 cores).
    `--disable-features=${[
      'NetworkTimeServiceQuerying',
      'OptimizationHints',
      'AimEnabled',
      'PreconnectToSearch',
      'WebUIOmniboxPopup',
      'WebUIOmniboxAimPopup',
    ].join(',')}`,
    // And an on-demand component check (the Optimization Guide's on-device model manifest, app
    // ceofaddefefcbblgcgnibnonglccbfja) that --disable-component-update does not stop and no
    // feature switch turns off: its update server is a port Chromium refuses to use (9 is on
    // its restricted-ports list), so the check fails inside Chromium and sends nothing.
    '--component-updater=url-source=http://127.0.0.1:9/',
  ];
  // Chromium refuses to start its sandbox as root (containers, CI).
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  args.push('about:blank');
  return args;
}

/** What Chromium puts under its TMPDIR for its singleton socket, the longest path it makes there. */
const SINGLETON_SOCKET_SUFFIX = '/org.chromium.Chromium.XXXXXX/SingletonSocket';
/** A unix socket path's limit on Linux (108 bytes of `sun_path`, with the terminating NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * A TMPDIR of its own for one Chromium, removed with its session: a killed browser cannot remove
 * its `org.chromium.Chromium.*` singleton dir, so it must not land in the shared temp dir. Inside
 * the runtime's work dir when the singleton socket's whole path fits a unix socket address
 * there, else a short dir of its own in the temp dir; undefined (Chromium's default) when
 * neither fits.
 */
export async function chromiumTempDir(workDir: string): Promise<string | undefined> {
  // A long TMPDIR (a CI runner's, a test's) leaves /tmp, where unix sockets always fit.
  const candidates = [join(workDir, 't'), join(tmpdir(), 'rbc-')];
  if (process.platform !== 'win32') candidates.push('/tmp/rbc-');
  for (const prefix of candidates) {
    // mkdtemp adds six characters.
    if (prefix.length + 6 + SINGLETON_SOCKET_SUFFIX.length <= MAX_SOCKET_PATH) {
      return mkdtemp(prefix);
    }
  }
  return undefined;
}

export interface ChromiumProcess {
  pid: number;
  /** ws://127.0.0.1:<port>/devtools/browser/<uuid> */
  browserWsUrl: string;
  /** Resolves when the browser process has exited (on its own or killed). */
  exited: Promise<void>;
  hasExited(): boolean;
  /** How it exited (`code 1`, `signal SIGKILL`), once it has. */
  exitStatus(): string;
  /** Its last stderr lines (a sandbox's forwarder says there why it ended it). */
  stderrTail(): string[];
  /** Kills the whole process group and waits until no live process of it is left. */
  kill(): Promise<void>;
}

/**
 * Starts Chromium's command line some other way (a sandbox, `isolation: 'remote'`): the process
 * that runs it, in a process group of its own, with Chromium's stderr on a pipe.
 */
export type ChromiumLauncher = (executable: string, args: string[]) => ChildProcess;

const STDERR_LINES_KEPT = 15;

export async function spawnChromium(
  executable: string,
  userDataDir: string,
  launchTimeoutMs: number,
  /** Chromium's TMPDIR; default the process's own. */
  tempDir?: string,
  /** What actually runs Chromium (a sandbox, runtime/sandbox.ts); default: Chromium itself. */
  launcher?: ChromiumLauncher,
): Promise<ChromiumProcess> {
  const child: ChildProcess = launcher
    ? launcher(executable, chromiumArgs(userDataDir))
    : spawn(executable, chromiumArgs(userDataDir), {
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        ...(tempDir ? { env: { ...process.env, TMPDIR: tempDir } } : {}),
      });
  const pid = child.pid;
  if (pid === undefined) {
    // spawn reports ENOENT/EACCES asynchronously through 'error'.
    const error = await new Promise<Error>((resolve) => child.once('error', resolve));
    throw new Error(`could not start Chromium at ${executable}: ${error.message}`);
  }
  trackGroup(pid);

  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  // A launcher's process (a spare sandbox) may have exited before it was handed over.
  const exited = hasExited()
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Keep a few recent lines for launch errors, and keep draining stderr for the process's whole
  // life: a full pipe would block Chromium's logging thread.
  const lastLines: string[] = [];
  let partial = '';
  let onLine: (line: string) => void = () => {};
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      lastLines.push(line);
      if (lastLines.length > STDERR_LINES_KEPT) lastLines.shift();
      onLine(line);
    }
  });

  const kill = async () => {
    killGroup(pid);
    await exited;
    await waitForGroupGone(pid);
  };

  let timer: NodeJS.Timeout | undefined;
  try {
    const browserWsUrl = await new Promise<string>((resolve, reject) => {
      const fail = (why: string) =>
        reject(
          new Error(
            `Chromium (${executable}) ${why}; last stderr lines:\n${lastLines.slice(-STDERR_LINES_KEPT).join('\n')}`,
          ),
        );
      onLine = (line) => {
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(line);
        if (match) resolve(match[1]!);
      };
      exited.then(() =>
        fail(`exited during launch (code ${child.exitCode}, signal ${child.signalCode})`),
      );
      timer = setTimeout(
        () => fail(`did not print its DevTools endpoint within ${launchTimeoutMs} ms`),
        launchTimeoutMs,
      );
    });
    return {
      pid,
      browserWsUrl,
      exited,
      hasExited,
      exitStatus: () =>
        child.signalCode ? `signal ${child.signalCode}` : `code ${child.exitCode}`,
      stderrTail: () => [...lastLines, ...(partial ? [partial] : [])],
      kill,
    };
  } catch (error) {
    await kill();
    throw error;
  } finally {
    clearTimeout(timer);
    onLine = () => {};
  }
}
