/**
 * `isolation: 'remote'`: each session's Chromium runs as on another machine. On Linux it runs
 * under bubblewrap (`bwrap`) in a network namespace of its own (only its own `lo`: nothing of the
 * host is reachable, by TCP, UDP or any other means) and a mount namespace where only the system
 * dirs are visible, read-only, next to its own temp dir, home and profile. Its only way out is
 * its exit (network/exit-proxy.ts), reached through a small forwarder that runs with it in the
 * sandbox: `127.0.0.1:8118` inside the sandbox is piped to the exit's unix socket, and the
 * forwarder's unix socket is piped to Chromium's DevTools port inside the sandbox. Both sockets
 * live in the session's own temp dir, the only host dir the sandbox can write.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { dirname, join } from 'node:path';

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

/**
 * Run by node inside the sandbox (passed inline with `-e`, so none of the project's files need
 * to be visible there), next to Chromium, which starts at once beside it: Chromium's first
 * request and the host's first DevTools connection come long after node is listening.
 */
const FORWARDER = `
const net = require('node:net');
const dir = process.env.RB_SOCKETS;
const pipe = (a, b) => {
  const end = () => { a.destroy(); b.destroy(); };
  for (const s of [a, b]) { s.on('error', end); s.on('close', end); }
  a.pipe(b); b.pipe(a);
};
net.createServer((c) => pipe(c, net.connect(dir + '/${EXIT_SOCKET}')))
  .listen(${SANDBOX_PROXY_PORT}, '127.0.0.1');
net.createServer((c) => pipe(c, net.connect(${SANDBOX_DEVTOOLS_PORT}, '127.0.0.1')))
  .listen(dir + '/${DEVTOOLS_SOCKET}');
`;

/** sh starts the forwarder in the background and becomes Chromium: the sandbox lives as long as Chromium. */
const START_BOTH = '"$0" -e "$1" & shift; exec "$@"';

export interface SandboxLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface SandboxSpec {
  bwrap: string;
  /** Chromium's args as for a plain launch (chromiumArgs()). */
  chromiumArgs: string[];
  executable: string;
  /** The session's own temp dir on the host: the sandbox's /tmp, HOME and the sockets. */
  tempDir: string;
  /** The profile dir on the host: the sandbox's /profile. */
  userDataDir: string;
  /** base64 SPKI hash of the exit's leaf key: Chromium trusts the exit's https certificates. */
  exitSpki: string;
}

/** System dirs the sandbox sees read-only; never `/`, a home, the project or the temp dir. */
const SYSTEM_DIRS = [
  '/usr',
  '/etc',
  '/opt',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
];

function mountSystemDirs(extra: readonly string[]): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    // Merged /usr: /bin -> usr/bin is a symlink in the sandbox too.
    if (lstatSync(dir).isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  // Chromium or node installed elsewhere (Playwright's cache): only their own install dir.
  for (const dir of extra) {
    if (!SYSTEM_DIRS.some((system) => dir === system || dir.startsWith(`${system}/`))) {
      args.push('--ro-bind', dir, dir);
    }
  }
  return args;
}

/** The bwrap command that runs the forwarder and Chromium in a sandbox of their own. */
export function sandboxLaunch(spec: SandboxSpec): SandboxLaunch {
  const node = realpathSync(process.execPath);
  const chromium = realpathSync(spec.executable);
  const args = [
    '--unshare-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    ...mountSystemDirs([dirname(node), dirname(chromium)]),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    spec.tempDir,
    SANDBOX_TMP,
    '--bind',
    spec.userDataDir,
    SANDBOX_PROFILE,
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'HOME',
    SANDBOX_TMP,
    '--setenv',
    'TMPDIR',
    SANDBOX_TMP,
    '--setenv',
    'RB_SOCKETS',
    SANDBOX_TMP,
    '--',
    '/bin/sh',
    '-c',
    START_BOTH,
    node,
    FORWARDER,
    spec.executable,
    ...sandboxedChromiumArgs(spec.chromiumArgs, spec.exitSpki),
  ];
  return { command: spec.bwrap, args, env: { LANG: process.env.LANG ?? 'C.UTF-8' } };
}

/** The plain launch's args with the sandbox's profile, DevTools port and exit. */
function sandboxedChromiumArgs(args: string[], exitSpki: string): string[] {
  const kept = args.filter(
    (arg) => !arg.startsWith('--user-data-dir=') && !arg.startsWith('--remote-debugging-port='),
  );
  const url = kept.pop() ?? 'about:blank';
  return [
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

/**
 * Resolves once the forwarder's DevTools socket in `tempDir` accepts connections: the forwarder
 * starts beside Chromium and may not be listening yet when Chromium prints its endpoint. The
 * runtime, the CDP proxy and the debugger address connect to that socket directly: no TCP port
 * on the host leads to a sandboxed Chromium.
 */
export async function devtoolsSocketReady(tempDir: string, timeoutMs: number): Promise<void> {
  const path = join(tempDir, DEVTOOLS_SOCKET);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const socket = netConnect(path);
    const failure = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      socket.once('connect', () => resolve(undefined));
      socket.once('error', resolve);
    });
    socket.destroy();
    if (!failure) return;
    if (failure.code !== 'ENOENT' && failure.code !== 'ECONNREFUSED') throw failure;
    if (Date.now() >= deadline) {
      throw new Error(`the sandbox's DevTools socket was not ready within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
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
    '--unshare-net',
    '--unshare-pid',
    '--die-with-parent',
    ...mountSystemDirs([dirname(node)]),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
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
