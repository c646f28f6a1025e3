/**
 * Every code block of README.md is checked, not only its TypeScript (issue 16: a newcomer copies
 * whatever the README shows). A `ts` block is a runnable program or a file of the README's
 * Playwright Test suite, and snippets.e2e.test.ts runs both; each `sh` command resolves to what
 * it names (an npm script, this package and its peers, a CLI command) and runs here where it can
 * (the demo, the CLI against an emulator); the transcript of CLI output is replayed against a
 * fresh emulator and must read the same, ids and ports aside. A block of any other kind fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, findFfmpeg, startEmulator } from '../../src/emulator/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const CLI = join(ROOT, PKG.bin['remote-browser'] ?? 'missing-bin');

interface Block {
  /** `README.md:12`: where the fence opens. */
  where: string;
  lang: string;
  flags: string;
  code: string;
}

const blocks: Block[] = [...README.matchAll(/^```(\w*)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm)].map(
  (m) => ({
    where: `README.md:${README.slice(0, m.index).split('\n').length}`,
    lang: m[1] ?? '',
    flags: (m[2] ?? '').trim(),
    code: m[3] ?? '',
  }),
);

/** The first line names the file for the README's suite (as snippets.e2e.test.ts reads it). */
const SUITE_FILE = /^\/\/ (playwright\.config\.ts|tests\/[\w-]+\.spec\.ts)\s*$/;
const isTranscript = (b: Block) => b.lang === '' && /^\$ /m.test(b.code);

/** The commands of an `sh` block: comments dropped, `a && b` split. */
function commandsOf(block: Block): { where: string; argv: string[] }[] {
  return block.code
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .flatMap((line) => line.split('&&'))
    .map((command) => ({ where: block.where, argv: command.trim().split(/\s+/) }));
}

const shell = blocks.filter((b) => b.lang === 'sh').flatMap(commandsOf);
const npmRuns = shell.filter((c) => c.argv[0] === 'npm' && ['run', 'test'].includes(c.argv[1]!));
const cliLines = shell.filter((c) => c.argv[0] === 'npx' && c.argv[1] === 'remote-browser');

let emu: EmulatorHandle;
let scratch: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'rb-readme-'));
  // No recordings: nothing here downloads one, and closing would wait for their encodes.
  emu = await startEmulator({ ffmpegPath: false });
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await emu?.close();
  rmSync(scratch, { recursive: true, force: true });
});

function emulatorEnv(): Record<string, string> {
  return {
    REMOTE_BROWSER_URL: emu.url,
    REMOTE_BROWSER_TOKEN: emu.token,
    REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
    REMOTE_BROWSER_ACCOUNT_URL: emu.accountUrl,
    REMOTE_BROWSER_API_KEY: emu.apiKey,
    REMOTE_BROWSER_CACHE_DIR: join(scratch, 'ledger'),
  };
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <file> ...args` as a user's shell would, without a terminal (so no colours). */
function run(
  file: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; until?: RegExp } = {},
): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [file, ...args], {
      cwd: options.cwd ?? scratch,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      // A long-running command (the emulator) is stopped as a user would: one Ctrl-C. (Sending
      // it again on each later chunk was a second Ctrl-C while the emulator closed, which a
      // process may rightly take as "quit now".)
      if (!interrupted && options.until?.test(stdout)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 200_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      done({ code, stdout, stderr });
    });
  });
}

describe('README code blocks', () => {
  it('are each of a kind this file or snippets.e2e.test.ts checks', () => {
    const unchecked = blocks
      .filter((b) => {
        if (b.lang === 'ts')
          return b.flags !== 'runnable' && !SUITE_FILE.test(b.code.split('\n')[0] ?? '');
        return b.lang !== 'sh' && !isTranscript(b);
      })
      .map((b) => `${b.where} (${b.lang || 'plain'}${b.flags ? ` ${b.flags}` : ''})`);
    expect(unchecked).toEqual([]);
    // The page a newcomer reads has them all: the clone commands, the install, a first script.
    expect(shell.length).toBeGreaterThan(0);
    expect(blocks.some((b) => b.flags === 'runnable')).toBe(true);
  });

  it('name only commands that exist: npm scripts, this package and its peers, CLI commands', () => {
    const unknown: string[] = [];
    for (const { where, argv } of shell) {
      const [tool, verb, ...rest] = argv;
      const line = `${where}: ${argv.join(' ')}`;
      if (tool === 'npm' && verb === 'ci' && rest.length === 0) continue;
      if (tool === 'npm' && verb === 'test' && rest.length === 0) {
        if (!PKG.scripts.test) unknown.push(`${line} (no "test" script)`);
        continue;
      }
      if (tool === 'npm' && verb === 'run' && rest.length === 1) {
        if (!PKG.scripts[rest[0]!]) unknown.push(`${line} (no such script)`);
        continue;
      }
      if (tool === 'npm' && (verb === 'i' || verb === 'install')) {
        const names = rest.filter((a) => !a.startsWith('-'));
        const known = new Set([PKG.name, ...Object.keys(PKG.peerDependencies)]);
        for (const name of names) if (!known.has(name)) unknown.push(`${line} (${name}?)`);
        if (names.length === 0) unknown.push(`${line} (installs nothing)`);
        continue;
      }
      if (tool === 'npx' && verb === 'remote-browser') continue; // run below
      unknown.push(`${line} (not a command this test knows how to check)`);
    }
    expect(unknown).toEqual([]);
  });

  it('`npm ci` can install from the lockfile: it lists what package.json asks for', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, Record<string, unknown>>;
    };
    const root = lock.packages[''] ?? {};
    expect(root.name).toBe(PKG.name);
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies'] as const)
      expect(root[field], field).toEqual(PKG[field]);
  });

  it('the test command is what CI runs, verbatim', () => {
    const testLines = blocks
      .filter((b) => b.lang === 'sh')
      .flatMap((b) => b.code.split('\n'))
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line.endsWith('npm test') && line.startsWith('npm ci'));
    expect(testLines.length).toBeGreaterThan(0);
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    for (const line of testLines) expect(ci).toMatch(new RegExp(`^${line}\\b`, 'm'));
  });

  it('`npm run demo` runs the main job offline: a session, a screenshot, deleted, a recording', {
    timeout: 300_000,
  }, async () => {
    // The clone's first command (issue 16: demo and tests right under the intro).
    expect(npmRuns.map((c) => c.argv.join(' '))).toContain('npm run demo');
    // What `npm run demo` runs once its predemo step (build, Chromium) is done.
    expect(PKG.scripts.demo).toBe('node scripts/demo.mjs');
    const cwd = mkdtempSync(join(scratch, 'demo-'));
    const result = await run(join(ROOT, 'scripts/demo.mjs'), [], { cwd });
    const output = result.stdout + result.stderr;
    expect(result.code, output).toBe(0);
    expect(output).toMatch(/session \S+ created and connected/);
    // The live view's token is a capability: the demo prints the URL without it.
    expect(output).toMatch(/live view: \S+\/live\/\S+/);
    expect(output).not.toMatch(/token=(?!\[REDACTED\])/);
    expect(output).toContain('closed: the session was deleted (0 running, 0 Chromium processes)');
    const shot = join(cwd, 'demo-output', 'screenshot.png');
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    const ffmpeg = findFfmpeg().path;
    if (ffmpeg) {
      const file = /recording downloaded: (.+)$/m.exec(output)?.[1];
      expect(file, output).toBeDefined();
      expect(existsSync(file!.trim())).toBe(true);
    }
  });

  it('CLI lines run against an emulator (`emulator` until its export lines, then Ctrl-C)', {
    timeout: 200_000,
  }, async () => {
    expect(cliLines.length).toBeGreaterThan(0);
    for (const { where, argv } of cliLines) {
      const args = argv.slice(2);
      if (args[0] === 'emulator') {
        // Port 0: another emulator on this machine may hold the default 8787.
        const result = await run(CLI, [...args, '--port', '0', '--no-recordings'], {
          until: /export REMOTE_BROWSER_API_KEY=/,
        });
        expect(result.stdout, `${where} ${result.stderr}`).toMatch(
          /^export REMOTE_BROWSER_URL='http:\/\/127\.0\.0\.1:\d+'$/m,
        );
        expect(result.code, `${where}: stopped by Ctrl-C`).toBe(0);
      } else {
        const result = await run(CLI, args, { env: emulatorEnv() });
        expect(result.code, `${where}: ${argv.join(' ')}\n${result.stderr}`).toBe(0);
      }
    }
    expect((await emu.admin.state()).runningSessions).toBe(0);
  });

  it('the CLI transcript is real output: replayed against a fresh emulator, it reads the same', {
    timeout: 200_000,
  }, async () => {
    const transcripts = blocks.filter(isTranscript);
    expect(transcripts.length).toBeGreaterThan(0);
    await emu.admin.reset();
    for (const block of transcripts) {
      // `$ remote-browser <args>` then its output, up to the next `$ ` line.
      const steps = block.code.split(/^\$ /m).filter((s) => s.trim() !== '');
      let shown = '';
      let actual = '';
      for (const step of steps) {
        const [command = '', ...output] = step.split('\n');
        const argv = command.trim().split(/\s+/);
        expect(argv[0], `${block.where}: ${command}`).toBe('remote-browser');
        const result = await run(CLI, argv.slice(1), { env: emulatorEnv() });
        shown += `$ ${command}\n${output.join('\n').trim()}\n`;
        actual += `$ ${command}\n${(result.stdout + result.stderr).trim()}\n`;
      }
      expect(normalize(actual), block.where).toBe(normalize(shown));
    }
    expect((await emu.admin.state()).runningSessions).toBe(0);
  });
});

/** Session ids become <id1>, <id2>... in order of appearance (so a repeated id must repeat), ports <port>. */
function normalize(text: string): string {
  const ids = new Map<string, string>();
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
      if (!ids.has(id)) ids.set(id, `<id${ids.size + 1}>`);
      return ids.get(id)!;
    })
    .replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:<port>');
}
