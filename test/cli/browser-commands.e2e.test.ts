import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { type FakeIoOptions, runCli } from './cli-io.js';

const tempDir = useTempDirs();

const ESC = '\u001b';
let emu: EmulatorHandle;
let env: Record<string, string>;
let api: BrowserApi;
let dir: string;

beforeAll(async () => {
  emu = await startEmulator({ recordingPublicationDelayMs: 0 });
  env = {
    REMOTE_BROWSER_URL: emu.browserUrl,
    REMOTE_BROWSER_TOKEN: emu.token,
    REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
    REMOTE_BROWSER_CACHE_DIR: await tempDir('cli-cache-'),
  };
  api = new BrowserApi({ baseUrl: emu.url, token: emu.token, proxyPassword: emu.proxyPassword });
  dir = await tempDir('cli-out-');
});
afterAll(async () => {
  await api?.close();
  await emu?.close();
});

/** Runs the CLI and checks that no credential of the emulator was printed. */
async function cli(argv: string[], options: FakeIoOptions = {}, extraEnv = {}) {
  const ran = await runCli(argv, { ...env, ...extraEnv }, options);
  for (const secret of [emu.token, emu.proxyPassword]) expect(ran.all).not.toContain(secret);
  return ran;
}

async function running(): Promise<string[]> {
  return (await api.sessions.list({ status: 'running' })).map((s) => s.id);
}

describe('sessions', () => {
  it('creates a session printing its id and live view but not its cdp_url', async () => {
    const created = await cli(['sessions', 'create', '--country', 'us', '--json']);
    expect(created.code).toBe(0);
    const body = JSON.parse(created.out);
    expect(body.live_view_url).toMatch(/^https?:\/\//);
    expect(created.out).not.toMatch(/wss?:\/\//);
    expect(await running()).toContain(body.id);

    const shown = await cli(['sessions', 'get', body.id, '--show-secrets', '--json']);
    expect(JSON.parse(shown.out).cdp_url).toMatch(/^wss?:\/\/.+/);
    expect(JSON.parse(shown.out).cdp_url).not.toContain('REDACTED');
    const hidden = await cli(['sessions', 'get', body.id]);
    expect(hidden.out).toContain(body.id);
    expect(hidden.out).not.toMatch(/wss?:\/\//);

    // The live view URL is a capability: its token is printed only with --show-secrets.
    const live = await cli(['sessions', 'live', body.id, '--show-secrets']);
    expect(live.out).toBe(JSON.parse(shown.out).live_view_url);
    const redacted = await cli(['sessions', 'live', body.id]);
    expect(redacted.out).toBe(live.out.replace(/token=[^&]+/, 'token=[REDACTED]'));
    await cli(['sessions', 'end', body.id]);
  });

  it('ends every id given, and says which one does not exist', async () => {
    const a = await api.sessions.create({});
    const b = await api.sessions.create({});
    const ended = await cli(['sessions', 'end', a.id, b.id, '--json']);
    expect(ended.code).toBe(0);
    expect(JSON.parse(ended.out).ended).toEqual([a.id, b.id]);
    expect(await running()).not.toContain(b.id);

    const missing = await cli(['sessions', 'end', 'no-such-session']);
    expect(missing.code).toBe(1);
    expect(missing.err.split('\n')).toHaveLength(1);
    expect(missing.err).toMatch(
      /no session no-such-session .*hint: ended sessions are kept 3 days/,
    );
  });

  it('end --all refuses without a terminal or --yes, asks on one, and ends them all', async () => {
    const a = await api.sessions.create({});
    const refused = await cli(['sessions', 'end', '--all']);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/--yes/);
    expect(await running()).toContain(a.id);

    const questions: string[] = [];
    const declined = await cli(['sessions', 'end', '--all'], {
      confirm: async (q) => {
        questions.push(q);
        return false;
      },
    });
    expect(declined.code).toBe(1);
    expect(questions[0]).toMatch(/End 1 running session/);
    expect(await running()).toContain(a.id);

    const yes = await cli(['sessions', 'end', '--all', '--yes']);
    expect(yes.code).toBe(0);
    expect(await running()).toEqual([]);
  });

  it('lists as JSON, as tab-separated lines through a pipe and as a table on a terminal', async () => {
    const s = await api.sessions.create({ country: 'us' });
    const json = await cli(['sessions', 'list', '--status', 'running', '--json']);
    expect(JSON.parse(json.out).map((x: { id: string }) => x.id)).toEqual([s.id]);
    const piped = await cli(['sessions', 'list', '--status', 'running']);
    expect(piped.out.split('\n')).toEqual([
      'id\tstatus\tcreated_at\tcountry',
      expect.stringMatching(new RegExp(`^${s.id}\\trunning\\t.+\\tus$`)),
    ]);
    const tty = await cli(
      ['sessions', 'list', '--status', 'running'],
      { isTTY: true },
      { FORCE_COLOR: '1' },
    );
    expect(tty.out).toContain(`${ESC}[1mid`);
    const noColor = await cli(['sessions', 'list'], { isTTY: true }, { NO_COLOR: '1' });
    expect(noColor.out).not.toContain(ESC);
    await api.sessions.end(s.id);
  });

  it('reaps nothing when the ledger is empty and says so', async () => {
    const reaped = await cli(['sessions', 'reap', '--json']);
    expect(reaped.code).toBe(0);
    expect(JSON.parse(reaped.out)).toEqual({ ended: [], alreadyGone: [], failed: [] });
  });
});

describe('profiles', () => {
  it('creates, renames, shows and deletes a profile by name', async () => {
    expect((await cli(['profiles', 'create', 'cli-a', '--description', 'first'])).code).toBe(0);
    expect((await cli(['profiles', 'rename', 'cli-a', 'cli-b'])).out).toMatch(
      /renamed "cli-a" to "cli-b"/,
    );
    const got = JSON.parse((await cli(['profiles', 'get', 'cli-b', '--json'])).out);
    expect(got).toMatchObject({ name: 'cli-b', description: 'first' });
    expect((await cli(['profiles', 'list'])).out).toContain('cli-b');
    expect((await cli(['profiles', 'delete', 'cli-b'])).code).toBe(0);
    expect(await api.profiles.findByName('cli-b')).toBeUndefined();
  });

  it('says "no profile named" for a name that does not exist', async () => {
    const r = await cli(['profiles', 'delete', 'nosuch']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no profile named or with id "nosuch"/);
    expect(r.err).not.toMatch(/404/);
  });
});

describe('targeting', () => {
  it('lists locations and the proxy vocabulary', async () => {
    const countries = JSON.parse(
      (await cli(['locations', 'countries', '--search', 'us', '--json'])).out,
    );
    expect(countries.map((c: { code: string }) => c.code)).toContain('us');
    const regions = await cli(['locations', 'regions', '--country', 'us']);
    expect(regions.code).toBe(0);
    expect(regions.out.split('\n').length).toBeGreaterThan(2);
    const missing = await cli(['locations', 'regions']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--country/);
    const proxy = await cli(['proxy', 'options']);
    expect(proxy.out).toMatch(/filter_modes: quality \(default\), quality_speed, speed, none/);
  });

  it('validate exits 0 with the username preview, 1 with each issue and its suggestion', async () => {
    const ok = await cli(['validate', '--country', 'us', '--filter-mode', 'speed']);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/✓ valid/);
    expect(ok.out).toMatch(/proxy username: .*-country-us/);
    const bad = await cli(['validate', '--filter-mode', 'fastest']);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/filter_mode: .*\(suggestion: .*quality/);
    const city = await cli([
      'validate',
      '--country',
      'us',
      '--region',
      'ca',
      '--city',
      'Atlantis',
      '--json',
    ]);
    expect(city.code).toBe(1);
    expect(JSON.parse(city.out).issues[0]).toMatchObject({ field: 'city', code: 'unknown_city' });
    const profile = await cli(['validate', '--profile', 'never-made']);
    expect(profile.code).toBe(1);
    expect(profile.out).toMatch(/no profile named "never-made"/);
  });

  it("validate previews the session's own username: city, zip and isp tokens from the service", async () => {
    const where = ['--country', 'us', '--region', 'ca'];
    const ok = await cli([
      'validate',
      ...where,
      '--city',
      'los_angeles',
      '--isp',
      'comcast',
      '--zip',
      '90001',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(
      /proxy username: \S*-country-us-region-ca-city-los_angeles-zip-90001-isp-comcast-sid-/,
    );
    const named = await cli(['validate', ...where, '--city', 'Los Angeles']);
    expect(named.code).toBe(1);
    expect(named.out).toMatch(/city: .*\(suggestion: use the code "los_angeles"/);
  });
});

describe('one throwaway session per page action', () => {
  const page = 'data:text/html,<title>cli</title><h1>hello from the cli</h1>';

  it('screenshot, pdf and content each end their session', async () => {
    const shot = await cli(['screenshot', page, '-o', join(dir, 'shot.png')]);
    expect(shot.code).toBe(0);
    expect((await readFile(join(dir, 'shot.png'))).subarray(1, 4).toString()).toBe('PNG');
    const pdf = await cli(['pdf', page, '-o', join(dir, 'page.pdf'), '--json']);
    expect(JSON.parse(pdf.out).bytes).toBeGreaterThan(100);
    expect((await readFile(join(dir, 'page.pdf'))).subarray(0, 4).toString()).toBe('%PDF');
    const content = await cli(['content', page]);
    expect(content.out).toContain('hello from the cli');
    expect(await running()).toEqual([]);
  });

  it('run exports the cdp_url to the child, passes its exit code and ends the session', async () => {
    const file = join(dir, 'run-env.json');
    const script = `require('fs').writeFileSync(${JSON.stringify(file)}, JSON.stringify({cdp: process.env.REMOTE_BROWSER_CDP_URL, id: process.env.REMOTE_BROWSER_SESSION_ID})); process.exit(7)`;
    const ran = await cli(['run', '--', process.execPath, '-e', script]);
    expect(ran.code).toBe(7);
    const seen = JSON.parse(await readFile(file, 'utf8'));
    expect(seen.cdp).toMatch(/^wss?:\/\//);
    expect((await api.sessions.retrieve(seen.id)).status).toBe('ended');
  });

  it('run ends the session when interrupted', async () => {
    const file = join(dir, 'run-id.txt');
    let press: ((signal: NodeJS.Signals) => void) | undefined;
    const script = `require('fs').writeFileSync(${JSON.stringify(file)}, process.env.REMOTE_BROWSER_SESSION_ID); setTimeout(() => {}, 60000)`;
    const pending = cli(['run', '--', process.execPath, '-e', script], {
      interrupt: (p) => (press = p),
    });
    let id = '';
    for (let i = 0; i < 600 && !id; i++) {
      id = await readFile(file, 'utf8').catch(() => '');
      if (!id) await new Promise((r) => setTimeout(r, 50));
    }
    press?.('SIGINT');
    const ran = await pending;
    expect(ran.code).toBe(130);
    expect((await api.sessions.retrieve(id)).status).toBe('ended');
  });
});

describe('page actions on a dev server (a page on this machine, issue 34 item 7)', () => {
  let origin: string;
  let server: ReturnType<typeof createServer>;
  let hanging: (() => void) | undefined;
  beforeAll(async () => {
    // The page's text comes from a script it loads: the subresource must come through too.
    server = createServer((req, res) => {
      if (req.url === '/hang') {
        hanging?.();
        return; // never answers: the page loads until Ctrl-C
      }
      if (req.url === '/app.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end("document.querySelector('h1').textContent = 'served from the dev server';");
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<!doctype html><title>dev</title><h1>not loaded</h1><div style="height:600px;background:linear-gradient(red,blue)"></div><script src="/app.js"></script>',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server?.close(resolve)));

  /**
   * Runs the CLI while collecting the cdp_url tokens of every running session (a cdp_url is
   * shown only while its session runs); no output may contain one.
   */
  async function cliWatchingTokens(argv: string[]) {
    const tokens = new Set<string>();
    let done = false;
    const watching = (async () => {
      while (!done) {
        for (const { id } of await api.sessions.list({ status: 'running' })) {
          const { cdp_url } = await api.sessions.retrieve(id).catch(() => ({ cdp_url: null }));
          const token = cdp_url ? new URL(cdp_url).searchParams.get('token') : null;
          if (token) tokens.add(token);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const ran = await cli(argv).finally(() => {
      done = true;
    });
    await watching;
    expect(tokens.size).toBeGreaterThan(0);
    for (const token of tokens) expect(ran.all).not.toContain(token);
    return ran;
  }

  it("the remote browser cannot reach this machine's loopback by itself", async () => {
    const s = await api.sessions.create({});
    try {
      await expect(api.tools.navigate({ session_id: s.id, url: `${origin}/` })).rejects.toThrow(
        /net::ERR_/,
      );
    } finally {
      await api.sessions.end(s.id);
    }
  });

  it('screenshot, pdf and content of a 127.0.0.1 page go through the tunnel, and end their session', async () => {
    const shot = await cliWatchingTokens(['screenshot', `${origin}/`, '-o', join(dir, 'dev.png')]);
    expect({ code: shot.code, err: shot.err }).toMatchObject({ code: 0 });
    const png = await readFile(join(dir, 'dev.png'));
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]));
    expect(png.length).toBeGreaterThan(2_000);

    const pdf = await cliWatchingTokens(['pdf', `${origin}/`, '-o', join(dir, 'dev.pdf')]);
    expect({ code: pdf.code, err: pdf.err }).toMatchObject({ code: 0 });
    expect((await readFile(join(dir, 'dev.pdf'))).subarray(0, 5).toString()).toBe('%PDF-');

    const content = await cliWatchingTokens(['content', `${origin}/`, '--json']);
    expect({ code: content.code, err: content.err }).toMatchObject({ code: 0 });
    const body = JSON.parse(content.out);
    expect(body.content).toContain('<h1>served from the dev server</h1>');
    expect(body.content).toMatch(/^<!DOCTYPE html>/);
    expect(await running()).toEqual([]);
  });

  it('Ctrl-C while the local page loads ends the session', async () => {
    let press: ((signal: NodeJS.Signals) => void) | undefined;
    hanging = () => press?.('SIGINT');
    try {
      const ran = await cli(['screenshot', `${origin}/hang`, '-o', join(dir, 'hang.png')], {
        interrupt: (p) => (press = p),
      });
      expect(ran.code).toBe(130);
      expect(ran.err).toMatch(/interrupted; the session was ended/);
      expect(await running()).toEqual([]);
    } finally {
      hanging = undefined;
    }
  });

  it('says when nothing listens on the local port, names no token, and ends the session', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const ran = await cliWatchingTokens(['content', `http://localhost:${port}/`]);
    expect(ran.code).toBe(1);
    expect(ran.err).toMatch(new RegExp(`navigate to http://localhost:${port}/ failed: net::ERR_`));
    expect(ran.err).toMatch(/is the server running on this machine/);
    expect(ran.all).not.toMatch(/token=(?!\[REDACTED\])/);
    expect(await running()).toEqual([]);
  });
});

describe('recordings', () => {
  it('lists and downloads the recordings of an ended session', async () => {
    const state = await emu.admin.state();
    if (!state.recordingsAvailable) return;
    const s = await api.sessions.create({});
    await api.tools.navigate({ session_id: s.id, url: 'data:text/html,<h1>rec</h1>' });
    await api.sessions.end(s.id);
    const out = join(dir, 'recs');
    const downloaded = await cli([
      'recordings',
      'download',
      s.id,
      '--dir',
      out,
      '--wait',
      '60',
      '--json',
    ]);
    expect(downloaded.code).toBe(0);
    const files = JSON.parse(downloaded.out);
    expect(files[0].bytes).toBeGreaterThan(0);
    expect(await readdir(out)).toContain(files[0].path.split('/').pop());
    expect(downloaded.err).toMatch(/downloading/);
    const listed = await cli(['recordings', 'list', s.id]);
    expect(listed.out).toContain(files[0].recording_id);
  });

  it('says the recordings are not published yet, with the --wait hint', async () => {
    const s = await api.sessions.create({});
    const r = await cli(['recordings', 'download', s.id, '--dir', dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no published recordings yet.*--wait/);
    await api.sessions.end(s.id);
  });
});
