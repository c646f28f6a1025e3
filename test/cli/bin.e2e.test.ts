/**
 * The built bin (`npm run build` first): colours and progress under a pseudo-terminal (util-linux
 * `script`), none through a pipe, the modules `--help` loads, and Ctrl-C during `run`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs();

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../dist/cli.js');
const TRACE = join(import.meta.dirname, 'fixtures/trace-loads.mjs');
const ESC = '\u001b[';
/** The environment without anything that would decide colours for us. */
const { NO_COLOR: _n, FORCE_COLOR: _f, ...BASE_ENV } = process.env;

let emu: EmulatorHandle;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  // No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
  emu = await startEmulator({ ffmpegPath: false });
  env = {
    ...BASE_ENV,
    REMOTE_BROWSER_URL: emu.browserUrl,
    REMOTE_BROWSER_TOKEN: emu.token,
    REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
    REMOTE_BROWSER_CACHE_DIR: await tempDir('cli-bin-'),
    TERM: 'xterm-256color',
  };
});
afterAll(() => emu?.close());

describe('the built bin', () => {
  it('draws a spinner and colours under a pseudo-terminal', async () => {
    const { stdout } = await run(
      'script',
      ['-qec', `${process.execPath} ${BIN} doctor`, '/dev/null'],
      {
        env,
      },
    );
    expect(stdout).toContain('checking…');
    expect(stdout).toContain(`${ESC}2K`);
    expect(stdout).toContain(`${ESC}32m✓${ESC}39m node`);
    expect(stdout).not.toContain(emu.token);
  });

  it('a reader that closes the pipe early (`| head -1`) ends it quietly, exit code 0', async () => {
    const child = spawn(process.execPath, [BIN, '--help'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the child has started: its first write meets a closed pipe.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('prints neither colours nor progress through a pipe', async () => {
    const { stdout, stderr } = await run(process.execPath, [BIN, 'doctor'], { env });
    expect(stdout).toMatch(/^✓ node/m);
    expect(stdout + stderr).not.toContain(ESC);
    expect(stderr).not.toContain('checking');
  });

  it('--help loads the parser and nothing of the commands', async () => {
    for (const argv of [['--help'], ['emulator', '--help'], ['sessions', 'list', '--help']]) {
      const { stderr } = await run(process.execPath, ['--import', TRACE, BIN, ...argv], { env });
      const loaded = stderr.split('\n').filter((l) => l.startsWith('LOADED '));
      expect(loaded.some((l) => l.includes('commander'))).toBe(true);
      for (const heavy of ['emulator.js', 'zod', 'undici', 'playwright', 'puppeteer']) {
        expect(loaded.filter((l) => l.includes(heavy))).toEqual([]);
      }
      // A shared chunk is named by a hash, not by what it holds: tsup heads each module it
      // bundles with a `// src/<path>` line, so no chunk loaded may hold an emulator module.
      const chunks = loaded.filter((l) => l.includes('/dist/')).map((l) => l.slice(7));
      for (const chunk of chunks) {
        const text = await readFile(new URL(chunk), 'utf8');
        expect({ chunk, emulator: text.match(/^\/\/ src\/emulator\/.*$/m)?.[0] }).toEqual({
          chunk,
          emulator: undefined,
        });
      }
    }
    // The same probe sees them when a command does run.
    const { stderr } = await run(process.execPath, ['--import', TRACE, BIN, 'sessions', 'list'], {
      env,
    });
    expect(stderr).toMatch(/LOADED .*zod/);
  });

  it('ends the session of `run` when the bin itself gets SIGINT', async () => {
    const dir = await tempDir('cli-sigint-');
    const file = join(dir, 'id');
    const script = `require('fs').writeFileSync(${JSON.stringify(file)}, process.env.REMOTE_BROWSER_SESSION_ID); setInterval(() => {}, 1000)`;
    const bin: ChildProcess = spawn(
      process.execPath,
      [BIN, 'run', '--', process.execPath, '-e', script],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    bin.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) =>
      bin.once('exit', (code) => resolve(code)),
    );
    let id = '';
    for (let i = 0; i < 1200 && !id; i++) {
      id = await readFile(file, 'utf8').catch(() => '');
      if (!id) await new Promise((r) => setTimeout(r, 50));
    }
    expect(id).not.toBe('');
    bin.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/SIGINT: ending the session/);
    const api = new BrowserApi({ baseUrl: emu.url, token: emu.token });
    expect((await api.sessions.retrieve(id)).status).toBe('ended');
    await api.close();
  });
});
