import type { Command } from '../command.js';
import { UsageError } from '../command.js';

export const emulatorCommand: Command = {
  name: 'emulator',
  summary: 'Run the local emulator of both services (real Chromium per session) in the foreground',
  usage:
    'remote-browser emulator [--port 8787] [--host 127.0.0.1] [--chromium PATH] [--ffmpeg PATH | --no-recordings]',
  flags: {
    port: {
      type: 'string',
      description: 'Port to listen on (0 picks a free one)',
      default: '8787',
    },
    host: { type: 'string', description: 'Loopback address to bind', default: '127.0.0.1' },
    chromium: {
      type: 'string',
      description:
        "Chromium executable (default: CHROMIUM_PATH, the system Chromium, Playwright's cache)",
    },
    ffmpeg: {
      type: 'string',
      description: 'ffmpeg executable for recordings (default: FFMPEG_PATH, then PATH)',
    },
    'no-recordings': {
      type: 'boolean',
      description: 'Turn recordings off even when ffmpeg is available',
    },
  },
  async run({ flags }, io) {
    const port = Number(flags.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`--port must be an integer from 0 to 65535 (got "${flags.port}")`);
    }
    const { runEmulatorForeground } = await import('../../emulator/cli-entry.js');
    await runEmulatorForeground(
      {
        port,
        host: String(flags.host),
        ...(typeof flags.chromium === 'string' ? { chromiumPath: flags.chromium } : {}),
        ...(flags['no-recordings']
          ? { ffmpegPath: false as const }
          : typeof flags.ffmpeg === 'string'
            ? { ffmpegPath: flags.ffmpeg }
            : {}),
      },
      { stdout: (line: string) => io.stdout(line) },
    );
    return 0;
  },
};
