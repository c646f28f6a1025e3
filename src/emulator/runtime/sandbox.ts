/**
 * `isolation: 'remote'`: each session's Chromium runs as on another machine. On Linux it runs
 * under bubblewrap (`bwrap`) in a network namespace of its own (only its own `lo`: nothing of the
 * host is reachable, by TCP, UDP or any other means) and a mount namespace where only the system
 * dirs (and a few `/etc` files) are visible, read-only, next to its own temp dir, home and
 * profile, as `nobody` in a user namespace of its own. Its only way out is its exit
 * (network/exit-proxy.ts), reached through the forwarder (runtime/forwarder.ts), Chromium's
 * parent in the sandbox: `127.0.0.1:8118` inside the sandbox is piped to the exit's unix socket,
 * and the forwarder's unix socket is piped to Chromium's DevTools port inside the sandbox. Both
 * sockets are made in the session's own temp dir, the only host dir the sandbox can write; the
 * host moves the DevTools one out of it before connecting (isolated-network.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Isolation = 'remote' | 'none';

/**
 * The isolation a session gets when `startEmulator()` is not told: `'remote'`, as a browser of
 * the real service is (issue 28 item 5). `'none'` runs it on this machine and is not faithful.
 */
export const RUNTIME_DEFAULT_ISOLATION: Isolation = 'remote';

/** Inside the sandbox: the exit's port, and Chromium's DevTools port (its own loopback, not the host's). */
export const SANDBOX_PROXY_PORT = 8118;
export const SANDBOX_DEVTOOLS_PORT = 9222;
/** Where the session's temp dir, its profile and home appear inside the sandbox. */
const SANDBOX_TMP = '/tmp';
const SANDBOX_PROFILE = '/profile';

/** The unix sockets in a session's temp dir. */
export const EXIT_SOCKET = 'exit.sock';
export const DEVTOOLS_SOCKET = 'devtools.sock';

/** The forwarder's stderr line that says why it ended the sandbox (runtime/forwarder.ts's FORWARDER_MARK). */
export const FORWARDER_MARK = 'remote-browser forwarder:';

/** Where the forwarder's built file appears inside the sandbox (read-only). */
const SANDBOX_FORWARDER = '/forwarder.js';

/**
 * The built forwarder (runtime/forwarder-main.ts → dist/sandbox-forwarder.js): beside the
 * emulator's entry or one folder up (from a chunk), else, from source (tests), the checkout's
 * dist/, which `npm run build` makes. `here` is this module's folder.
 */
export function forwarderScript(here = dirname(fileURLToPath(import.meta.url))): string {
  const candidates = [
    join(here, 'sandbox-forwarder.js'),
    join(here, '..', 'sandbox-forwarder.js'),
    join(here, '..', '..', '..', 'dist', 'sandbox-forwarder.js'),
  ];
  const found = candidates.find((file) => existsSync(file));
  if (!found) {
    throw new Error(
      `the sandbox's forwarder (sandbox-forwarder.js) is not built: run npm run build (looked in ${candidates.join(', ')})`,
    );
  }
  return found;
}

/** The sandbox's user: nobody, not the host's (root's) uid. */
export const SANDBOX_UID = 65534;

export interface SandboxLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface SandboxSpec {
  bwrap: string;
  /** Chromium's executable: its install dir is bound in read-only. */
  executable: string;
  /** The session's own temp dir on the host: the sandbox's /tmp, HOME and the sockets. */
  tempDir: string;
  /** The profile dir on the host: the sandbox's /profile. */
  userDataDir: string;
  /** The built forwarder on the host (forwarderScript()). */
  forwarder: string;
}

/**
 * System dirs the sandbox sees read-only; never `/`, `/etc` whole, `/opt`, a home, the project
 * or the temp dir.
 */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** fontconfig's system cache (world-readable, no secret). */
const FONT_CACHE = '/var/cache/fontconfig';

/**
 * The only `/etc` entries the sandbox sees (read-only), each what Chromium or its Debian
 * wrapper reads: libraries, fonts, names, the zone, its own config. Not `shadow`, `ssh`, `ssl`
 * private keys, `sudoers` or any other secret of the host: `file:///etc/shadow` is not there.
 */
export const SANDBOX_ETC = [
  'alternatives',
  'chromium',
  'chromium.d',
  'fonts',
  'group',
  'host.conf',
  'hosts',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'mime.types',
  'nsswitch.conf',
  'passwd',
  'timezone',
];

function mountSystemDirs(extra: readonly string[]): string[] {
  const args: string[] = [];
  for (const entry of SANDBOX_ETC) {
    const path = `/etc/${entry}`;
    if (existsSync(path)) args.push('--ro-bind', path, path);
  }
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    // Merged /usr: /bin -> usr/bin is a symlink in the sandbox too.
    if (lstatSync(dir).isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  // The system's font cache: without it every session's Chromium rebuilds one in its own HOME.
  if (existsSync(FONT_CACHE)) args.push('--ro-bind', FONT_CACHE, FONT_CACHE);
  // Chromium or node installed elsewhere (Playwright's cache): only their own install dir.
  for (const dir of extra) {
    if (!SYSTEM_DIRS.some((system) => dir === system || dir.startsWith(`${system}/`))) {
      args.push('--ro-bind', dir, dir);
    }
  }
  return args;
}

/**
 * The namespaces of a sandbox, the same for the launch and the probe that tests them: its own
 * user namespace as nobody (no capability over the host, no host uid), its own network, pids,
 * IPC and host name, the system dirs (and `extraDirs`) read-only, its own /dev and /proc.
 */
function namespaces(extraDirs: readonly string[]): string[] {
  return [
    '--unshare-user',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--cap-drop',
    'ALL',
    '--unshare-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    ...mountSystemDirs(extraDirs),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
}

/**
 * The bwrap command that runs the forwarder in a sandbox of its own; Chromium's command line
 * (sandboxedCommand) goes to the forwarder's stdin, maybe later (runtime/sandbox-process.ts).
 */
export function sandboxLaunch(spec: SandboxSpec): SandboxLaunch {
  const node = realpathSync(process.execPath);
  const chromium = realpathSync(spec.executable);
  // The sandbox's whole environment: its dirs, and the forwarder's options (forwarder.ts).
  const env = {
    PATH: '/usr/bin:/bin',
    HOME: SANDBOX_TMP,
    TMPDIR: SANDBOX_TMP,
    RB_EXIT_SOCKET: `${SANDBOX_TMP}/${EXIT_SOCKET}`,
    RB_PROXY_PORT: String(SANDBOX_PROXY_PORT),
    RB_DEVTOOLS_SOCKET: `${SANDBOX_TMP}/${DEVTOOLS_SOCKET}`,
    RB_DEVTOOLS_PORT: String(SANDBOX_DEVTOOLS_PORT),
  };
  const args = [
    ...namespaces([dirname(node), dirname(chromium)]),
    '--bind',
    spec.tempDir,
    SANDBOX_TMP,
    '--bind',
    spec.userDataDir,
    SANDBOX_PROFILE,
    '--clearenv',
    ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
    '--ro-bind',
    spec.forwarder,
    SANDBOX_FORWARDER,
    '--',
    node,
    SANDBOX_FORWARDER,
  ];
  return { command: spec.bwrap, args, env: { LANG: process.env.LANG ?? 'C.UTF-8' } };
}

/**
 * Chromium's command line in the sandbox: the plain launch's args with the sandbox's profile,
 * DevTools port and exit, whose https certificates it trusts by `exitSpki` (base64 SPKI hash of
 * the exit's leaf key).
 */
export function sandboxedCommand(executable: string, args: string[], exitSpki: string): string[] {
  const kept = args.filter(
    (arg) => !arg.startsWith('--user-data-dir=') && !arg.startsWith('--remote-debugging-port='),
  );
  const url = kept.pop() ?? 'about:blank';
  return [
    executable,
    ...kept,
    `--user-data-dir=${SANDBOX_PROFILE}`,
    `--remote-debugging-port=${SANDBOX_DEVTOOLS_PORT}`,
    // A fixed port is not an automation launch to Chromium (port 0 is): without this switch
    // `navigator.webdriver` would read false in the sandbox and true on 'none'.
    '--enable-automation',
    `--proxy-server=http://127.0.0.1:${SANDBOX_PROXY_PORT}`,
    // Loopback goes to the exit too (Chromium bypasses the proxy for it by default).
    '--proxy-bypass-list=<-loopback>',
    `--ignore-certificate-errors-spki-list=${exitSpki}`,
    // WebRTC may not pick a route around the proxy (there is none in the sandbox anyway).
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    url,
  ];
}

const BWRAP_CANDIDATES = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];

/** bwrap's path if it runs a command in new network and mount namespaces here, else why not. */
export async function probeSandbox(): Promise<{ bwrap: string } | { reason: string }> {
  if (process.platform !== 'linux') {
    return { reason: `bubblewrap sandboxes need Linux (this is ${process.platform})` };
  }
  const bwrap = BWRAP_CANDIDATES.find((path) => existsSync(path));
  if (!bwrap) return { reason: 'bubblewrap (bwrap) is not installed: apt-get install bubblewrap' };
  const node = realpathSync(process.execPath);
  const args = [
    ...namespaces([dirname(node)]),
    '--tmpfs',
    '/tmp',
    '--',
    node,
    '-e',
    'process.exit(0)',
  ];
  const outcome = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error) => resolve({ code: -1, stderr: error.message }));
    child.on('close', (code) => resolve({ code, stderr }));
  });
  if (outcome.code === 0) return { bwrap };
  return {
    reason: `bubblewrap cannot make namespaces here (${outcome.stderr.trim().split('\n')[0] || `exit ${outcome.code}`})`,
  };
}
