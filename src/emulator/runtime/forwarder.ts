/**
 * The sandbox's forwarder: the one process of a session's sandbox besides Chromium, and its
 * parent. It listens, starts Chromium once its command line comes on stdin, then lives exactly
 * as long as it:
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
import { type ChildProcess, spawn } from 'node:child_process';
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
 * What the forwarder's process is given in its environment: its options. Chromium's command line
 * comes later, on its stdin (readCommand), so a sandbox can be started before its session is
 * asked for, and no process but Chromium carries Chromium's flags.
 */
export function forwarderOptionsFromEnv(env: NodeJS.ProcessEnv): ForwarderOptions {
  return {
    exitSocket: readEnv(env, 'RB_EXIT_SOCKET'),
    proxyPort: Number(readEnv(env, 'RB_PROXY_PORT')),
    devtoolsSocket: readEnv(env, 'RB_DEVTOOLS_SOCKET'),
    devtoolsPort: Number(readEnv(env, 'RB_DEVTOOLS_PORT')),
  };
}

/** Chromium's command line: all of `input` (the forwarder's stdin), a JSON array of strings. */
export async function readCommand(input: AsyncIterable<string | Buffer>): Promise<string[]> {
  let text = '';
  for await (const chunk of input) text += String(chunk);
  if (!text) throw new Error('no command came on stdin');
  let command: unknown;
  try {
    command = JSON.parse(text);
  } catch {
    throw new Error('the command on stdin is not JSON');
  }
  if (
    !Array.isArray(command) ||
    command.length === 0 ||
    !command.every((arg) => typeof arg === 'string')
  ) {
    throw new Error('the command on stdin is not a JSON array of strings');
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
 * The forwarder's process: listens, waits for `command` (Chromium's, which may come long after:
 * a spare sandbox), starts it with stdio inherited (its DevTools line reaches the host on
 * stderr), and exits when a listener fails or Chromium exits.
 */
export async function runForwarder(
  options: ForwarderOptions,
  command: Promise<readonly string[]>,
  /** How it ends; default: the process exits. In-process (tests) it neither exits nor takes signals. */
  exit?: (code: number) => void,
): Promise<void> {
  const asProcess = exit === undefined;
  exit ??= (code) => process.exit(code);
  const say = (reason: string) => process.stderr.write(`${FORWARDER_MARK} ${reason}\n`);
  let child: ChildProcess | undefined;
  // Stopping the sandbox stops Chromium first; before Chromium, it just ends.
  if (asProcess) {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.on(signal, () => (child ? child.kill(signal) : exit(128 + SIGNALS[signal]!)));
    }
  }
  const forwarder = await startForwarder(options).catch((error: Error) => {
    say(`could not listen on ${error.message}`);
  });
  if (!forwarder) return exit(1);
  const argv = await command.catch(async (error: Error) => {
    say(`no command to run: ${error.message}`);
    await forwarder.close();
  });
  if (!argv) return exit(1);
  const [executable, ...args] = argv;
  const started = spawn(executable!, args, { stdio: 'inherit' });
  child = started;
  started.on('error', (error) => {
    say(`could not start Chromium: ${error.message}`);
    exit(1);
  });
  started.on('exit', (code, signal) => {
    say(`Chromium exited (${signal ? `signal ${signal}` : `code ${code}`})`);
    void forwarder.close();
    exit(code ?? 128 + (SIGNALS[signal ?? ''] ?? 0));
  });
  void forwarder.failed.then((reason) => {
    say(reason);
    started.kill('SIGKILL');
  });
}
