/**
 * `remote-browser emulator`: both services on loopback with a real Chromium per session. In
 * the foreground it prints the env lines to export; `--write-env FILE` writes them as a dotenv
 * file; `-- <command...>` runs one command with them exported and stops when it exits. The
 * credentials printed are the emulator's own throwaway ones: printing them is the point.
 */
import type { Command } from 'commander';
import type { EmulatorHandle, EmulatorOptions } from '../../emulator/index.js';
import { runChild } from '../child.js';
import { CliError, usageError } from '../errors.js';
import { act, integer, type Options, type Runtime } from '../kit.js';
import type { Output } from '../output.js';

const LIMIT_KEYS: Record<string, string> = {
  sessions: 'concurrentSessions',
  profiles: 'profiles',
  'max-duration': 'maxDurationMinutes',
  'idle-timeout': 'idleTimeoutMinutes',
};

export function register(program: Command, rt: Runtime): void {
  program
    .command('emulator')
    .description('run the local emulator of both services (real Chromium per session)')
    .argument('[command...]', 'after --: run this command with the env exported, then stop')
    .usage('[flags] [-- <command...>]')
    .option(
      '--port <port>',
      'port to listen on (0 picks a free one)',
      integer('--port', { min: 0, max: 65535 }),
      8787,
    )
    .option(
      '--host <address>',
      'loopback address to bind (another address only with --expose)',
      '127.0.0.1',
    )
    .option(
      '--expose',
      'allow a --host that is not loopback: its admin API has no auth (warns on start)',
    )
    .option(
      '--rtt <ms>',
      'model a network round trip on every exchange',
      integer('--rtt', { min: 0 }),
      0,
    )
    .option(
      '--flaky <ms>',
      "cut one session's websockets at random, this many ms apart on average (sessions keep running)",
      integer('--flaky', { min: 1 }),
    )
    .option(
      '--session-start <ms>',
      "model the real service's session start time",
      integer('--session-start', { min: 0 }),
      0,
    )
    .option(
      '--limits <list>',
      `account limits, e.g. sessions=2,profiles=3 (keys: ${Object.keys(LIMIT_KEYS).join(', ')})`,
    )
    .option(
      '--chromium <path>',
      "Chromium executable (default: CHROMIUM_PATH, the system's, Playwright's cache)",
    )
    .option('--ffmpeg <path>', 'ffmpeg for recordings (default: FFMPEG_PATH, then PATH)')
    .option('--no-recordings', 'turn recordings off even when ffmpeg is available')
    .option(
      '--isolation <mode>',
      "remote: each session's browser runs as on another machine; none: on this one (not faithful)",
    )
    .option(
      '--internet <h=url>',
      'publish host h on the emulator internet, e.g. shop.test=http://127.0.0.1:4000 (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--tls',
      'serve https and wss with a CA made for this emulator (prints NODE_EXTRA_CA_CERTS)',
    )
    .option('--write-env <file>', 'also write the credentials to this dotenv file')
    .action(
      act(rt, async (out, [command], opts) => {
        // Loaded only when the command runs: `--help` loads no emulator code.
        const [{ startEmulator }, { runEmulatorForeground }, { isLoopbackHost }] =
          await Promise.all([
            import('../../emulator/index.js'),
            import('../../emulator/cli-entry.js'),
            import('../../emulator/server/own-origin.js'),
          ]);
        const options = optionsOf(opts, isLoopbackHost);
        const argv = command as string[];
        if (argv.length > 0) {
          const handle = await startEmulator(options);
          const { writeCaFile } = await import('../../emulator/cli-entry.js');
          const ca = await writeCaFile(handle);
          try {
            await writeEnv(rt, out, handle, opts);
            // Ctrl-C goes to the child; the emulator stops once the child has exited.
            let dispose: (() => void) | undefined;
            try {
              return await runChild({
                command: argv,
                cwd: rt.io.cwd,
                env: {
                  ...rt.io.env,
                  ...envOf(handle),
                  ...(ca ? { NODE_EXTRA_CA_CERTS: ca.path } : {}),
                },
                onStarted: (forward) => {
                  dispose = rt.io.onInterrupt?.(forward);
                },
              });
            } finally {
              dispose?.();
            }
          } finally {
            await handle.close();
            await ca?.remove();
          }
        }
        const running = await runEmulatorForeground(options, {
          stdout: (line) => out.unredacted(line),
        });
        try {
          await writeEnv(rt, out, running.handle, opts);
        } catch (error) {
          await running.handle.close();
          throw error;
        }
        await running.closed;
        return 0;
      }),
    );
}

function optionsOf(opts: Options, isLoopbackHost: (host: string) => boolean): EmulatorOptions {
  const options: EmulatorOptions = { port: opts.port as number, host: opts.host as string };
  if (opts.expose === true) options.expose = true;
  else if (!isLoopbackHost(options.host as string)) {
    throw usageError(
      `--host ${options.host} is not a loopback address: the emulator's admin API has no auth; add --expose to bind it anyway`,
    );
  }
  if (opts.rtt) options.network = { rttMs: opts.rtt as number };
  if (opts.flaky)
    options.network = { ...options.network, flaky: { meanIntervalMs: opts.flaky as number } };
  if (opts.sessionStart) options.sessionStartMs = opts.sessionStart as number;
  if (typeof opts.chromium === 'string') options.chromiumPath = opts.chromium;
  if (opts.recordings === false) options.ffmpegPath = false;
  else if (typeof opts.ffmpeg === 'string') options.ffmpegPath = opts.ffmpeg;
  if (opts.isolation !== undefined) {
    if (opts.isolation !== 'remote' && opts.isolation !== 'none') {
      throw usageError(`--isolation: must be remote or none (got "${String(opts.isolation)}")`);
    }
    options.isolation = opts.isolation;
  }
  if (Array.isArray(opts.internet)) {
    const internet: Record<string, string> = {};
    for (const pair of opts.internet as string[]) {
      const at = pair.indexOf('=');
      if (at <= 0) {
        throw usageError(
          `--internet: "${pair}" is not host=origin, e.g. shop.test=http://127.0.0.1:4000`,
        );
      }
      internet[pair.slice(0, at)] = pair.slice(at + 1);
    }
    options.internet = internet;
  }
  if (opts.tls === true) options.tls = true;
  if (typeof opts.limits === 'string') {
    const limits: Record<string, number> = {};
    for (const pair of opts.limits.split(',')) {
      const [key = '', value = ''] = pair.split('=').map((s) => s.trim());
      const name = LIMIT_KEYS[key];
      const n = Number(value);
      if (!name || !/^\d+$/.test(value) || n < 1) {
        throw usageError(
          `--limits: "${pair}" is not key=positive-integer with key one of ${Object.keys(LIMIT_KEYS).join(', ')}`,
        );
      }
      limits[name] = n;
    }
    options.defaultLimits = limits;
  }
  return options;
}

function envOf(handle: EmulatorHandle): Record<string, string> {
  return {
    REMOTE_BROWSER_URL: handle.browserUrl,
    REMOTE_BROWSER_TOKEN: handle.token,
    REMOTE_BROWSER_PROXY_PASSWORD: handle.proxyPassword,
    REMOTE_BROWSER_ACCOUNT_URL: handle.accountUrl,
    REMOTE_BROWSER_API_KEY: handle.apiKey,
  };
}

/**
 * Writes the dotenv file owner-only (0600, an existing file too), and never through a symbolic
 * link: another local user's link in a shared directory must not redirect the credentials
 * (lstat first for a clear error, then O_NOFOLLOW where the platform has it, against a race).
 */
async function writeEnv(
  rt: Runtime,
  out: Output,
  handle: EmulatorHandle,
  opts: Options,
): Promise<void> {
  if (typeof opts.writeEnv !== 'string') return;
  const { lstat, open } = await import('node:fs/promises');
  const { constants } = await import('node:fs');
  const { resolve } = await import('node:path');
  const path = resolve(rt.io.cwd ?? process.cwd(), opts.writeEnv);
  const symlink = () =>
    new CliError(`--write-env: ${path} is a symbolic link; refusing to write through it`, {
      hint: 'remove the link, or name a regular file',
    });
  const existing = await lstat(path).catch(() => undefined);
  if (existing?.isSymbolicLink()) throw symlink();
  const lines = Object.entries(envOf(handle)).map(([key, value]) => `${key}=${value}`);
  const flags =
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  const file = await open(path, flags, 0o600).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ELOOP' ? symlink() : error;
  });
  try {
    // Owner-only: the file holds credentials (throwaway ones, but still).
    await file.chmod(0o600);
    await file.writeFile(`${lines.join('\n')}\n`);
  } finally {
    await file.close();
  }
  out.note(
    `# wrote ${path} (load it with \`set -a; . ${opts.writeEnv}; set +a\` or \`node --env-file=${opts.writeEnv}\`)`,
  );
}
