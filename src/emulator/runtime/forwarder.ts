/**
 * The sandbox's forwarder: the one process of a session's sandbox besides Chromium, and its
 * parent. It starts Chromium, listens, then lives exactly as long as it:
 * - `127.0.0.1:<proxyPort>` inside the sandbox (Chromium's `--proxy-server`) is piped to the
 *   exit's unix socket, the only way out of the sandbox;
 * - a unix socket in the session's temp dir is piped to Chromium's DevTools port inside the
 *   sandbox (the host moves that socket out of the sandbox's reach before using it:
 *   isolated-network.ts).
 * If a listener fails, it says why on stderr (one `FORWARDER_MARK` line) and ends Chromium; when
 * Chromium exits, it exits with Chromium's status: the sandbox never outlives either, and the
 * runtime reads the reason from the sandbox's stderr. It imports node built-ins only: the built
 * `dist/sandbox-forwarder.js` is bound read-only into the sandbox, and nothing else of the
 * project is visible there.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** Starts the forwarder's stderr line that says why it ended the sandbox. */
export const FORWARDER_MARK = 'remote-browser forwarder:';

export interface ForwarderOptions {
  /** The exit's unix socket (the host's exit proxy listens there). */
  exitSocket: string;
  /** The port on the sandbox's loopback that is piped to the exit. */
  proxyPort: number;
  /** The unix socket the host connects to for DevTools. */
  devtoolsSocket: string;
  /** Chromium's DevTools port on the sandbox's loopback. */
  devtoolsPort: number;
}

export interface Forwarder {
  /** Resolves with the reason when a listener fails after the start. */
  failed: Promise<string>;
  close(): Promise<void>;
}

/** Pipes two sockets both ways; either side's end or error ends both. */
export function pipeBoth(a: Socket, b: Socket): void {
  const end = () => {
    a.destroy();
    b.destroy();
  };
  for (const socket of [a, b]) {
    socket.on('error', end);
    socket.on('close', end);
  }
  a.pipe(b);
  b.pipe(a);
}

/** Rejects with the listen error (events.once rejects on 'error'). */
async function listen(server: Server, where: number | string): Promise<void> {
  if (typeof where === 'number') server.listen(where, '127.0.0.1');
  else server.listen(where);
  await once(server, 'listening');
}

/** Both listeners up (rejects naming the one that could not listen). */
export async function startForwarder(options: ForwarderOptions): Promise<Forwarder> {
  const exit = createServer((client) => pipeBoth(client, connect(options.exitSocket)));
  const devtools = createServer((client) =>
    pipeBoth(client, connect(options.devtoolsPort, '127.0.0.1')),
  );
  const servers = [exit, devtools];
  try {
    await listen(exit, options.proxyPort).catch((error: Error) => {
      throw new Error(`the exit's port 127.0.0.1:${options.proxyPort}: ${error.message}`);
    });
    await listen(devtools, options.devtoolsSocket).catch((error: Error) => {
      throw new Error(`the DevTools socket: ${error.message}`);
    });
  } catch (error) {
    for (const server of servers) server.close();
    throw error;
  }
  const failed = new Promise<string>((resolve) => {
    exit.once('error', (error) => resolve(`the exit's listener failed: ${error.message}`));
    devtools.once('error', (error) => resolve(`the DevTools listener failed: ${error.message}`));
  });
  return {
    failed,
    close: async () => {
      await Promise.all(
        servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
      );
    },
  };
}

/**
 * What the forwarder's process is given, all in its environment: its options, and Chromium's
 * command line as a JSON array (`RB_COMMAND`), so the forwarder's own argv is only its file and
 * no process but Chromium carries Chromium's flags.
 */
export function forwarderOptionsFromEnv(env: NodeJS.ProcessEnv): ForwarderOptions {
  return {
    exitSocket: readEnv(env, 'RB_EXIT_SOCKET'),
    proxyPort: Number(readEnv(env, 'RB_PROXY_PORT')),
    devtoolsSocket: readEnv(env, 'RB_DEVTOOLS_SOCKET'),
    devtoolsPort: Number(readEnv(env, 'RB_DEVTOOLS_PORT')),
  };
}

/** Chromium's command line from `RB_COMMAND`. */
export function commandFromEnv(env: NodeJS.ProcessEnv): string[] {
  const command: unknown = JSON.parse(readEnv(env, 'RB_COMMAND'));
  if (!Array.isArray(command) || !command.every((arg) => typeof arg === 'string')) {
    throw new Error('RB_COMMAND is not a JSON array of strings');
  }
  return command;
}

function readEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** Chromium's exit status as a shell reports it: its code, or 128 + the signal's number. */
const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/**
 * The forwarder's process: starts `command` (Chromium) with stdio inherited (its DevTools line
 * reaches the host on stderr), listens, and exits when a listener fails or Chromium exits.
 */
export async function runForwarder(
  options: ForwarderOptions,
  command: readonly string[],
  /** How it ends; default: the process exits. In-process (tests) it neither exits nor takes signals. */
  exit?: (code: number) => void,
): Promise<void> {
  const asProcess = exit === undefined;
  exit ??= (code) => process.exit(code);
  const say = (reason: string) => process.stderr.write(`${FORWARDER_MARK} ${reason}\n`);
  const [executable, ...args] = command;
  if (!executable) {
    say('no command to run');
    exit(1);
    return;
  }
  // Chromium first: it takes far longer to start than the listeners, whose first client comes
  // after its DevTools line (the host waits for the socket: isolated-network.ts claimSocket).
  const child = spawn(executable, args, { stdio: 'inherit' });
  // Stopping the sandbox stops Chromium first.
  if (asProcess) {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.on(signal, () => child.kill(signal));
    }
  }
  let forwarder: Forwarder | undefined;
  child.on('error', (error) => {
    say(`could not start Chromium: ${error.message}`);
    exit(1);
  });
  child.on('exit', (code, signal) => {
    say(`Chromium exited (${signal ? `signal ${signal}` : `code ${code}`})`);
    void forwarder?.close();
    exit(code ?? 128 + (SIGNALS[signal ?? ''] ?? 0));
  });
  try {
    forwarder = await startForwarder(options);
  } catch (error) {
    say(`could not listen on ${(error as Error).message}`);
    child.removeAllListeners('exit');
    child.kill('SIGKILL');
    exit(1);
    return;
  }
  void forwarder.failed.then((reason) => {
    say(reason);
    child.kill('SIGKILL');
  });
}
