/**
 * `remote-browser emulator`: both services on loopback with a real Chromium per session. In
 * the foreground it prints the env lines to export; `--write-env FILE` writes them as a dotenv
 * file; `-- <command...>` runs one command with them exported and stops when it exits. The
 * credentials printed are the emulator's own throwaway ones: printing them is the point.
 */
import type { Command } from 'commander';
import type { EmulatorHandle, EmulatorOptions } from '../../emulator/index.js';
import { runChild } from '../child.js';
import { usageError } from '../errors.js';
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
    .option('--host <address>', 'loopback address to bind', '127.0.0.1')
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
    .option('--write-env <file>', 'also write the credentials to this dotenv file')
    .action(
      act(rt, async (out, [command], opts) => {
        const options = optionsOf(opts);
        const argv = command as string[];
        const { runEmulatorForeground, startEmulator } = await import('../../emulator/index.js');
        if (argv.length > 0) {
          const handle = await startEmulator(options);
          try {
            await writeEnv(rt, out, handle, opts);
            // Ctrl-C goes to the child; the emulator stops once the child has exited.
            let dispose: (() => void) | undefined;
            try {
              return await runChild({
                command: argv,
                cwd: rt.io.cwd,
                env: { ...rt.io.env, ...envOf(handle) },
                onStarted: (forward) => {
                  dispose = rt.io.onInterrupt?.(forward);
                },
              });
            } finally {
              dispose?.();
            }
          } finally {
            await handle.close();
          }
        }
        const running = await runEmulatorForeground(options, {
          stdout: (line) => out.unredacted(line),
        });
        await writeEnv(rt, out, running.handle, opts);
        await running.closed;
        return 0;
      }),
    );
}

function optionsOf(opts: Options): EmulatorOptions {
  const options: EmulatorOptions = { port: opts.port as number, host: opts.host as string };
  if (opts.rtt) options.network = { rttMs: opts.rtt as number };
  if (opts.flaky)
    options.network = { ...options.network, flaky: { meanIntervalMs: opts.flaky as number } };
  if (opts.sessionStart) options.sessionStartMs = opts.sessionStart as number;
  if (typeof opts.chromium === 'string') options.chromiumPath = opts.chromium;
  if (opts.recordings === false) options.ffmpegPath = false;
  else if (typeof opts.ffmpeg === 'string') options.ffmpegPath = opts.ffmpeg;
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

async function writeEnv(
  rt: Runtime,
  out: Output,
  handle: EmulatorHandle,
  opts: Options,
): Promise<void> {
  if (typeof opts.writeEnv !== 'string') return;
  const { writeFile } = await import('node:fs/promises');
  const { resolve } = await import('node:path');
  const path = resolve(rt.io.cwd ?? process.cwd(), opts.writeEnv);
  const lines = Object.entries(envOf(handle)).map(([key, value]) => `${key}=${value}`);
  // Owner-only: the file holds credentials (throwaway ones, but still).
  await writeFile(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  out.note(
    `# wrote ${path} (load it with \`set -a; . ${opts.writeEnv}; set +a\` or \`node --env-file=${opts.writeEnv}\`)`,
  );
}
