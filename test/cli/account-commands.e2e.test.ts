import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runCli } from './cli-io.js';

let emu: EmulatorHandle;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await startEmulator({ account: { delay: { minMs: 200, maxMs: 600 } } });
  env = { REMOTE_BROWSER_ACCOUNT_URL: emu.accountUrl, REMOTE_BROWSER_API_KEY: emu.apiKey };
});
afterAll(() => emu?.close());

async function cli(argv: string[], extraEnv: Record<string, string> = {}) {
  const ran = await runCli(argv, { ...env, ...extraEnv });
  expect(ran.all).not.toContain(emu.apiKey);
  return ran;
}

async function admin(path: string, body: unknown) {
  const response = await fetch(`${emu.url}/_emulator${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey: emu.apiKey, ...(body as object) }),
  });
  expect(response.ok).toBe(true);
}

describe('account commands', () => {
  it('balance prints the credits', async () => {
    const r = await cli(['balance', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).balance).toBeGreaterThan(0);
    expect((await cli(['balance'])).out).toMatch(/^\d+ credits$/);
  });

  it('ask waits for every row and prints the answers grouped by location; results reads them again', async () => {
    const r = await cli([
      'ask',
      'best pizza in town?',
      '--platform',
      'assistant_a',
      '--platform',
      'assistant_b',
      '--country',
      'us',
      '--country',
      'de',
      '--interval',
      '200',
    ]);
    expect(r.code).toBe(0);
    const groups = r.out.split('\n').filter((l) => l.startsWith('== '));
    expect(groups).toHaveLength(2);
    expect(r.out).toMatch(/assistant_a \[success\] best pizza in town\?/);
    // Through a pipe: one plain line per settled row, no redraws.
    expect(r.err.split('\n').filter((l) => /^✓ assistant_/.test(l))).toHaveLength(4);

    const id = (
      await cli(['ask', 'q2', '--platform', 'assistant_a', '--country', 'us', '--no-wait'])
    ).out;
    const batch = JSON.parse((await cli(['results', id, '--json'])).out);
    expect(batch.request_id).toBe(id);
    expect(batch.results).toHaveLength(1);
    const missing = await cli(['results', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no request nope/);
  });

  it('webhooks: create hides the secret, update keeps what it is not told to change, rotate shows it only when asked', async () => {
    const created = await cli([
      'webhooks',
      'create',
      'https://example.test/hook',
      '--event',
      'credits.low',
      '--description',
      'keep me',
      '--json',
    ]);
    expect(created.code).toBe(0);
    const hook = JSON.parse(created.out);
    expect(hook.secret).toBe('[REDACTED]');
    const id = String(hook.id ?? hook.webhook_id ?? hook.uuid);

    expect((await cli(['webhooks', 'disable', id])).code).toBe(0);
    const updated = JSON.parse(
      (await cli(['webhooks', 'update', id, '--url', 'https://example.test/v2', '--json'])).out,
    );
    expect(updated).toMatchObject({
      url: 'https://example.test/v2',
      description: 'keep me',
      enabled: false,
      events: ['credits.low'],
    });
    expect(JSON.parse((await cli(['webhooks', 'enable', id, '--json'])).out).enabled).toBe(true);

    const rotated = await cli(['webhooks', 'rotate-secret', id, '--show-secrets', '--json']);
    expect(rotated.code).toBe(0);
    const secret = JSON.parse(rotated.out).secret as string;
    expect(secret).not.toContain('REDACTED');
    expect(secret.length).toBeGreaterThan(8);
    const listed = await cli(['webhooks', 'list']);
    expect(listed.out).toContain('https://example.test/v2');
    expect(listed.out).not.toContain(secret);
    expect((await cli(['webhooks', 'event-types'])).out).toContain('credits.low');
    expect((await cli(['webhooks', 'delete', id])).code).toBe(0);
    const gone = await cli(['webhooks', 'get', id]);
    expect(gone.code).toBe(1);
    expect(gone.err).toMatch(new RegExp(`no webhook ${id}`));
  });

  it('notifications: list the unread ones, read one, read the rest with --all', async () => {
    await admin('/notifications', { message: 'first' });
    await admin('/notifications', { message: 'second' });
    const listed = JSON.parse((await cli(['notifications', 'list', '--json'])).out) as {
      notification_id: string;
    }[];
    expect(listed).toHaveLength(2);
    const first = listed[0]?.notification_id as string;
    expect((await cli(['notifications', 'read', first])).code).toBe(0);
    const rest = JSON.parse((await cli(['notifications', 'read', '--all', '--json'])).out);
    expect(rest.read).toEqual([listed[1]?.notification_id]);
    expect((await cli(['notifications', 'list'])).out).toMatch(/no unread notifications/);
  });
});
