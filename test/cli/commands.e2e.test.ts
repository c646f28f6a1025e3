import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import type { CliIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';

let emu: EmulatorHandle;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await startEmulator();
  env = {
    REMOTE_BROWSER_URL: emu.url,
    REMOTE_BROWSER_TOKEN: emu.token,
    REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
  };
});
afterAll(() => emu?.close());

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), isTTY: false, env };
  const code = await main(argv, cli);
  const all = [...out, ...err].join('\n');
  expect(all).not.toContain(emu.token);
  expect(all).not.toContain(emu.proxyPassword);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('CLI against the emulator', () => {
  it('lists, ends and lists sessions again, never printing a credential or cdp_url', async () => {
    const api = new BrowserApi({
      baseUrl: emu.url,
      token: emu.token,
      proxyPassword: emu.proxyPassword,
    });
    const created = await api.sessions.create({ country: 'us' });
    const list = await run('sessions', 'list', '--status', 'running', '--json');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out).map((s: { id: string }) => s.id)).toContain(created.id);
    expect(list.out).not.toContain('cdp_url');
    const table = await run('sessions', 'list');
    expect(table.out).toMatch(/^id\s+status\s+created_at\s+country/);
    expect((await run('sessions', 'end', created.id)).code).toBe(0);
    expect((await api.sessions.retrieve(created.id)).status).toBe('ended');
    await api.close();
  });

  it('validate exits 0 for a clean targeting and 1 with the issues for a bad one', async () => {
    const ok = await run('validate', '--country', 'us', '--filter-mode', 'speed');
    expect(ok.code).toBe(0);
    const bad = await run('validate', '--filter-mode', 'fastest');
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/filter_mode: .*suggestion/);
  });

  it('deletes a profile by name', async () => {
    const api = new BrowserApi({ baseUrl: emu.url, token: emu.token });
    await api.profiles.create({ name: 'cli-profile' });
    expect((await run('profiles', 'list')).out).toContain('cli-profile');
    expect((await run('profiles', 'delete', 'cli-profile')).code).toBe(0);
    expect(await api.profiles.findByName('cli-profile')).toBeUndefined();
    await api.close();
  });

  it('fails with one redacted line on an API error', async () => {
    const r = await run('sessions', 'end', 'no-such-session');
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/404/);
  });
});
