import { chmod, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { runCli } from './cli-io.js';

const tempDir = useTempDirs();

let emu: EmulatorHandle;
let env: Record<string, string>;
let notTheApi: Server;
let notTheApiUrl: string;

beforeAll(async () => {
  // No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
  emu = await startEmulator({ ffmpegPath: false });
  env = {
    REMOTE_BROWSER_URL: emu.browserUrl,
    REMOTE_BROWSER_TOKEN: emu.token,
    REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
    REMOTE_BROWSER_ACCOUNT_URL: emu.accountUrl,
    REMOTE_BROWSER_API_KEY: emu.apiKey,
  };
  notTheApi = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><h1>Not Found</h1>');
  });
  await new Promise<void>((resolve) => notTheApi.listen(0, '127.0.0.1', resolve));
  notTheApiUrl = `http://127.0.0.1:${(notTheApi.address() as { port: number }).port}`;
});
afterAll(async () => {
  notTheApi?.close();
  await emu?.close();
});

/** One line on stderr, exit 1, the hint once, no credential. */
async function failure(argv: string[], extraEnv: Record<string, string>) {
  const r = await runCli(argv, { ...env, ...extraEnv });
  expect(r.code).toBe(1);
  expect(r.err.split('\n')).toHaveLength(1);
  expect(r.err.match(/hint:/g)).toHaveLength(1);
  for (const secret of [emu.token, emu.apiKey, emu.proxyPassword, 'wrong-token-123456']) {
    expect(r.err).not.toContain(secret);
  }
  return r.err;
}

describe('each failure is one line with one hint', () => {
  it('401 from the browser service: the 7-day token, once', async () => {
    const err = await failure(['sessions', 'list'], { REMOTE_BROWSER_TOKEN: 'wrong-token-123456' });
    expect(err).toMatch(/401/);
    expect(err.match(/7 days/g)).toHaveLength(1);
  });

  it('401 from the account service: the Profile section', async () => {
    const err = await failure(['balance'], { REMOTE_BROWSER_API_KEY: 'wrong-token-123456' });
    expect(err).toMatch(/401.*Profile section/);
  });

  it('connection refused: is the service up, how to start the emulator', async () => {
    const err = await failure(['sessions', 'list'], { REMOTE_BROWSER_URL: 'http://127.0.0.1:9' });
    // One line, one hint: the library's own "nothing is listening" says what to change.
    expect(err).toMatch(
      /ECONNREFUSED.*hint: nothing is listening at http:\/\/127\.0\.0\.1:9.*remote-browser emulator/,
    );
    expect(err.match(/remote-browser emulator/g)).toHaveLength(1);
  });

  it('https:// against the plain-http emulator: the scheme does not match', async () => {
    const err = await failure(['sessions', 'list'], {
      REMOTE_BROWSER_URL: emu.browserUrl.replace('http://', 'https://'),
    });
    // The library's own hint names the URL to use; OpenSSL's record is reduced to its reason.
    const http = emu.browserUrl;
    expect(err).toContain('failed without a response: TLS handshake failed: wrong version number');
    expect(err).toContain(`does not speak TLS: use ${http} in REMOTE_BROWSER_URL)`);
  });

  it('a URL that answers but is not the API', async () => {
    const err = await failure(['profiles', 'list'], { REMOTE_BROWSER_URL: notTheApiUrl });
    expect(err).toMatch(/hint: the URL answers but not as the API/);
  });

  it('errors are JSON with --json', async () => {
    const r = await runCli(['sessions', 'list', '--json'], {
      ...env,
      REMOTE_BROWSER_TOKEN: 'wrong-token-123456',
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).error).toMatchObject({ code: 'unauthorized', status: 401 });
  });
});

describe('emulator command', () => {
  it('EADDRINUSE: says the port is taken and how to pick another', async () => {
    const port = new URL(emu.url).port;
    const err = await failure(['emulator', '--port', port, '--', process.execPath, '-e', '0'], {});
    expect(err).toMatch(/hint: the port is taken.*--port 0/);
  });

  it('runs a command with the credentials exported, writes them with --write-env, passes the exit code', async () => {
    const dir = await tempDir('cli-emu-');
    const seen = join(dir, 'seen.json');
    const script = `const e=process.env; require('fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify({url: e.REMOTE_BROWSER_URL, token: e.REMOTE_BROWSER_TOKEN, key: e.REMOTE_BROWSER_API_KEY})); process.exit(3)`;
    const r = await runCli(
      ['emulator', '--port', '0', '--write-env', '.env', '--', process.execPath, '-e', script],
      {},
      { cwd: dir },
    );
    expect(r.code).toBe(3);
    const child = JSON.parse(await readFile(seen, 'utf8'));
    expect(child.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(child.url).not.toBe(emu.url);
    const dotenv = await readFile(join(dir, '.env'), 'utf8');
    expect(dotenv).toContain(`REMOTE_BROWSER_URL=${child.url}\n`);
    expect(dotenv).toContain(`REMOTE_BROWSER_TOKEN=${child.token}\n`);
    expect(dotenv).toContain(`REMOTE_BROWSER_API_KEY=${child.key}\n`);
    expect((await stat(join(dir, '.env'))).mode & 0o077).toBe(0);
    // The emulator stopped with the command.
    await expect(fetch(`${child.url}/_emulator/state`)).rejects.toThrow();
  });
});

describe('emulator --write-env on a shared machine', () => {
  it('refuses to write through a symbolic link, leaving its target alone and running nothing', async () => {
    const dir = await tempDir('cli-emu-link-');
    const victim = join(dir, 'victim');
    await writeFile(victim, 'untouched\n');
    await symlink(victim, join(dir, '.env'));
    const ran = join(dir, 'ran');
    const r = await runCli(
      [
        'emulator',
        '--port',
        '0',
        '--write-env',
        '.env',
        '--',
        process.execPath,
        '-e',
        `require('fs').writeFileSync(${JSON.stringify(ran)}, 'x')`,
      ],
      {},
      { cwd: dir },
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/--write-env: .*\.env is a symbolic link; refusing to write through it/);
    expect(await readFile(victim, 'utf8')).toBe('untouched\n');
    await expect(stat(ran)).rejects.toThrow();
  });

  it('makes an existing world-readable file owner-only (0600)', async () => {
    const dir = await tempDir('cli-emu-mode-');
    const env = join(dir, '.env');
    await writeFile(env, 'OLD=1\n');
    await chmod(env, 0o644);
    const r = await runCli(
      ['emulator', '--port', '0', '--write-env', '.env', '--', process.execPath, '-e', '0'],
      {},
      { cwd: dir },
    );
    expect(r.code).toBe(0);
    expect((await stat(env)).mode & 0o777).toBe(0o600);
    expect(await readFile(env, 'utf8')).toMatch(/^REMOTE_BROWSER_URL=/);
  });
});

describe('doctor', () => {
  it('checks the services and says when the token expires at the latest', async () => {
    const cache = await tempDir('cli-doctor-');
    const r = await runCli(['doctor', '--json'], { ...env, REMOTE_BROWSER_CACHE_DIR: cache });
    const { checks } = JSON.parse(r.out) as {
      checks: { name: string; status: string; detail: string }[];
    };
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName.node?.status).toBe('ok');
    expect(byName['playwright-core']?.status).toBe('ok');
    expect(byName['browser service']?.status).toBe('ok');
    expect(byName.token?.detail).toMatch(/accepted; expires by \d{4}-.* at the latest/);
    expect(byName['account service']?.detail).toMatch(/API key accepted; \d+ credits/);
    expect(r.code).toBe(checks.some((c) => c.status === 'fail') ? 1 : 0);
    expect(r.out).not.toContain(emu.token);

    const bad = await runCli(['doctor'], { ...env, REMOTE_BROWSER_TOKEN: 'wrong-token-123456' });
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/✗ browser service .*401.*7 days/);
  });
});
