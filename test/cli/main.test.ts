import { describe, expect, it } from 'vitest';
import { runCli } from './cli-io.js';

/** A URL nothing listens on: a test that reached the network would fail with ECONNREFUSED. */
const NOWHERE = { REMOTE_BROWSER_URL: 'http://127.0.0.1:9', REMOTE_BROWSER_TOKEN: 'tok-123456' };

describe('remote-browser help', () => {
  it('pins the top-level help', async () => {
    const r = await runCli(['--help'], {});
    expect(r.code).toBe(0);
    expect(r.out).toMatchSnapshot();
  });

  it.each(
    [
      ['sessions'],
      ['sessions', 'end'],
      ['emulator'],
      ['validate'],
      ['recordings', 'download'],
      ['ask'],
      ['webhooks'],
      ['run'],
    ].map((path) => [path.join(' '), path] as const),
  )('pins the help of %s', async (_name, path) => {
    const r = await runCli([...path, '--help'], {});
    expect(r.code).toBe(0);
    expect(r.out).toMatchSnapshot();
  });

  it('`help <command>` prints that command’s help, not the top-level one', async () => {
    const viaHelp = await runCli(['help', 'sessions'], {});
    const viaFlag = await runCli(['sessions', '--help'], {});
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.out).toBe(viaFlag.out);
    expect(viaHelp.out).toMatch(/^Usage: remote-browser sessions/);
  });

  it('prints help on stderr and exits 2 without a command or a subcommand', async () => {
    const none = await runCli([], {});
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^Usage: remote-browser/);
    const group = await runCli(['sessions'], {});
    expect(group.code).toBe(2);
    expect(group.err).toMatch(/^Usage: remote-browser sessions/);
  });

  it('prints the version', async () => {
    const r = await runCli(['--version'], {});
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('wrong invocations exit 2 with one line and a hint, before any network call', () => {
  it.each([
    [
      ['sesions', 'list'],
      /unknown command 'sesions' \(did you mean sessions\?\).*remote-browser --help/,
    ],
    [
      ['sessions', 'list', '--stauts', 'running'],
      /unknown option '--stauts' \(did you mean --status\?\)/,
    ],
    [['sessions', 'get', 'a', 'b'], /too many arguments/],
    [['sessions', 'list', '--status', 'sleeping'], /must be one of running, ended, all/],
    [['sessions', 'list', '--limit', '0'], /--limit must be an integer >= 1/],
    [['sessions', 'end'], /pass ids, or --all/],
    [['sessions', 'end', 'a', '--all'], /not both/],
    [['emulator', '--port', '70000'], /--port must be an integer from 0 to 65535/],
    [['emulator', '--limits', 'sessions=two'], /--limits: "sessions=two"/],
    [['emulator', '--host', '0.0.0.0'], /--host 0\.0\.0\.0 is not a loopback address.*--expose/],
    [['webhooks', 'rotate-secret', 'wh_1'], /needs --show-secrets/],
  ])('%j', async (argv, message) => {
    const r = await runCli(argv, NOWHERE);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(r.err).toMatch(message);
    expect(r.err).toMatch(/hint|see/);
  });

  it('writes usage errors as JSON with --json', async () => {
    const r = await runCli(['sessions', 'list', '--stauts', 'x', '--json'], NOWHERE);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({
      error: {
        code: 'usage',
        message: "unknown option '--stauts' (did you mean --status?)",
        hint: 'see `remote-browser sessions --help`',
      },
    });
  });
});

describe('configuration errors', () => {
  it('names every missing variable at once, with where to find it', async () => {
    const r = await runCli(['sessions', 'create'], {});
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toHaveLength(1);
    for (const name of [
      'REMOTE_BROWSER_URL',
      'REMOTE_BROWSER_TOKEN',
      'REMOTE_BROWSER_PROXY_PASSWORD',
    ]) {
      expect(r.err).toContain(name);
    }
    expect(r.err).toMatch(/dashboard, browser page; valid 7 days/);
  });

  it('names the account variables for account commands', async () => {
    const r = await runCli(['balance', '--json'], NOWHERE);
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.out);
    expect(error.code).toBe('configuration');
    expect(error.message).toMatch(
      /REMOTE_BROWSER_ACCOUNT_URL .* and REMOTE_BROWSER_API_KEY \(dashboard, Profile section\)/,
    );
  });
});
