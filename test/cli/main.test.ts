import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';

function io(env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), isTTY: false, env };
  return { cli, out, err };
}

describe('remote-browser CLI', () => {
  it('lists the commands with --help and exits 0', async () => {
    const { cli, out } = io();
    expect(await main(['--help'], cli)).toBe(0);
    expect(out.join('\n')).toMatch(/emulator[\s\S]*sessions[\s\S]*profiles[\s\S]*validate/);
  });

  it('exits 2 with a one-line reason for an unknown command', async () => {
    const { cli, err } = io();
    expect(await main(['frobnicate'], cli)).toBe(2);
    expect(err.join('\n')).toMatch(/unknown command "frobnicate"/);
  });

  it('describes every flag of a command with --help', async () => {
    const { cli, out } = io();
    expect(await main(['sessions', '--help'], cli)).toBe(0);
    expect(out.join('\n')).toMatch(
      /--status <value>\n\s+With `list`: running, ended or all \(default: all\)/,
    );
  });

  it('exits 2 on a bad flag value before any network call', async () => {
    const { cli, err } = io({
      REMOTE_BROWSER_URL: 'http://127.0.0.1:1',
      REMOTE_BROWSER_TOKEN: 'tok-123456',
    });
    expect(await main(['sessions', 'list', '--status', 'sleeping'], cli)).toBe(2);
    expect(err.join('\n')).toMatch(/--status must be one of running, ended, all/);
  });

  it('exits 1 naming the env var when the token is missing', async () => {
    const { cli, err } = io({ REMOTE_BROWSER_URL: 'http://127.0.0.1:1' });
    expect(await main(['sessions', 'list'], cli)).toBe(1);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/REMOTE_BROWSER_TOKEN/);
  });

  it('prints the version', async () => {
    const { cli, out } = io();
    expect(await main(['--version'], cli)).toBe(0);
    expect(out[0]).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
