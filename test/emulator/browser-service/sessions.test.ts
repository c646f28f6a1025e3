import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

let emu: FakeEmulator;
let api: ReturnType<typeof client>;
const MINUTE = 60_000;

beforeAll(async () => {
  emu = await startFakeEmulator();
  api = client(emu.url, emu.token);
});
afterAll(async () => {
  await emu.close();
});

async function create(
  body: Record<string, unknown> = {},
  caller = api,
  password = emu.proxyPassword,
) {
  return caller('POST', '/sessions', { body: { proxy_password: password, ...body } });
}

describe('session create', () => {
  it('answers with id, cdp_url and status running, and the session reads back with its config', async () => {
    const res = await create({ country: 'us', filter_mode: 'speed' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      cdp_url: expect.any(String),
      status: 'running',
    });
    const { id, cdp_url } = res.body.data;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const detail = (await api('GET', `/sessions/${id}`)).body.data;
    expect(detail).toEqual({
      id,
      status: 'running',
      created_at: expect.stringMatching(/Z$/),
      ended_at: null,
      cdp_url,
      config: {
        country: 'us',
        protocol: 'http',
        connection_type: 'residential',
        session_type: 'sticky',
        filter_mode: 'speed',
        quality_filter_enabled: false,
        ipv4_only: false,
        profile_name: null,
        profile_id: null,
      },
    });
    expect(JSON.stringify(detail)).not.toContain(emu.proxyPassword);
    await api('DELETE', `/sessions/${id}`);
  });

  it('hands out a different access token per session', async () => {
    const a = (await create()).body.data;
    const b = (await create()).body.data;
    const tokenOf = (url: string) => new URL(url).searchParams.get('token');
    expect(tokenOf(a.cdp_url)).not.toBe(tokenOf(b.cdp_url));
    await Promise.all([api('DELETE', `/sessions/${a.id}`), api('DELETE', `/sessions/${b.id}`)]);
  });

  it('answers 400 for a missing or wrong proxy password and for unsupported values, launching nothing', async () => {
    const launched = emu.control.launched.length;
    const missing = await api('POST', '/sessions', { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('proxy_password');
    const wrong = await create({}, api, 'not-the-password');
    expect(wrong.status).toBe(400);
    expect(wrong.text).not.toContain('not-the-password');
    for (const body of [
      { protocol: 'ftp' },
      { filter_mode: 'fast' },
      { connection_type: 'isp' },
      { session_type: 'forever' },
      { ipv4_only: 'true' },
      { country: 'xx' },
      { country: 'us', region: 'atlantis' },
      { filter_mode: 'none', quality_filter_enabled: true },
      { max_duration_minutes: 1.5 },
    ]) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(emu.control.launched.length).toBe(launched);
  });

  it('answers an unknown profile_id with 404', async () => {
    expect((await create({ profile_id: 'no-such-profile' })).status).toBe(404);
  });

  it('answers 502 when the browser fails to start', async () => {
    emu.control.failNextLaunch = true;
    const res = await create();
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

describe('concurrent session limit', () => {
  it('answers 429 with limit_type sessions and Retry-After, and frees the slot on delete', async () => {
    const { token, proxyPassword } = await emu.admin.createAccount({
      limits: { concurrentSessions: 2 },
    });
    const other = client(emu.url, token);
    const a = await create({}, other, proxyPassword);
    await create({}, other, proxyPassword);
    const third = await create({}, other, proxyPassword);
    expect(third.status).toBe(429);
    expect(third.body).toEqual({
      error: expect.any(String),
      limit_type: 'sessions',
      current_usage: 2,
      limit: 2,
      retry_after: expect.any(Number),
    });
    expect(third.headers['retry-after']).toBe(String(third.body.retry_after));
    await other('DELETE', `/sessions/${a.body.data.id}`);
    expect((await create({}, other, proxyPassword)).status).toBe(200);
  });

  it('counts creates still launching, so parallel creates never exceed the limit', async () => {
    const { accountId, token, proxyPassword } = await emu.admin.createAccount({
      limits: { concurrentSessions: 3 },
    });
    const other = client(emu.url, token);
    // Launches long enough that all six creates arrive while the first ones are launching.
    emu.control.launchDelayMs = 300;
    const launchedBefore = emu.control.launched.length;
    try {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => create({}, other, proxyPassword)),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(3);
      expect(results.filter((r) => r.status === 429)).toHaveLength(3);
    } finally {
      emu.control.launchDelayMs = 25;
    }
    expect(emu.control.launched.length - launchedBefore).toBe(3);
    expect((await emu.admin.account(accountId)).peakRunningSessions).toBe(3);
  });
});

describe('session list and lookups', () => {
  it('lists newest first without cdp_url, filters by status and validates status and limit', async () => {
    const { token, proxyPassword } = await emu.admin.createAccount();
    const other = client(emu.url, token);
    const first = (await create({}, other, proxyPassword)).body.data;
    const second = (await create({}, other, proxyPassword)).body.data;
    await other('DELETE', `/sessions/${first.id}`);
    const all = (await other('GET', '/sessions')).body.data;
    expect(all.map((s: any) => s.id)).toEqual([second.id, first.id]);
    expect(all[0]).toEqual({
      id: second.id,
      status: 'running',
      created_at: expect.any(String),
      config: expect.any(Object),
    });
    expect(
      (await other('GET', '/sessions?status=running')).body.data.map((s: any) => s.id),
    ).toEqual([second.id]);
    expect((await other('GET', '/sessions?status=ended')).body.data.map((s: any) => s.id)).toEqual([
      first.id,
    ]);
    expect((await other('GET', '/sessions?limit=1')).body.data).toHaveLength(1);
    expect((await other('GET', '/sessions?status=paused')).status).toBe(400);
    expect((await other('GET', '/sessions?limit=0')).status).toBe(400);
    expect((await other('GET', '/sessions?limit=501')).status).toBe(400);
  });

  it('serves connection details while running and pages of the browser', async () => {
    const { id, cdp_url } = (await create()).body.data;
    const connection = (await api('GET', `/sessions/${id}/connection`)).body.data;
    expect(connection).toEqual({
      id,
      status: 'running',
      cdp_url,
      debugger_address: '127.0.0.1:1',
      live_view_url: expect.stringMatching(
        new RegExp(`^${emu.url}/live/${id}\\?token=[\\w-]{43}$`),
      ),
      config: expect.any(Object),
    });
    expect((await api('GET', `/sessions/${id}/pages`)).body.data).toEqual([
      { id: 'p1', title: 'Fake', type: 'page', url: 'about:blank' },
    ]);
    await api('DELETE', `/sessions/${id}`);
    const ended = (await api('GET', `/sessions/${id}`)).body.data;
    expect(ended.status).toBe('ended');
    expect(ended.ended_at).toEqual(expect.any(String));
    expect(ended).not.toHaveProperty('cdp_url');
    expect((await api('GET', `/sessions/${id}/connection`)).body.data).toMatchObject({
      cdp_url: null,
      debugger_address: null,
      live_view_url: null,
    });
  });

  it('treats DELETE of an ended session as a success', async () => {
    const { id } = (await create()).body.data;
    expect((await api('DELETE', `/sessions/${id}`)).body).toEqual({ data: { status: 'success' } });
    expect((await api('DELETE', `/sessions/${id}`)).body).toEqual({ data: { status: 'success' } });
  });

  it("answers another account's session with 404 on every route", async () => {
    const { id } = (await create()).body.data;
    const { token } = await emu.admin.createAccount();
    const other = client(emu.url, token);
    for (const [method, path, body] of [
      ['GET', `/sessions/${id}`],
      ['GET', `/sessions/${id}/connection`],
      ['GET', `/sessions/${id}/pages`],
      ['GET', `/sessions/${id}/recordings`],
      ['DELETE', `/sessions/${id}`],
      ['POST', `/sessions/${id}/click`, { selector: 'a' }],
      ['POST', `/sessions/${id}/type`, { selector: 'a', text: 'x' }],
      ['POST', `/sessions/${id}/scroll`, { x: 0, y: 1 }],
      ['POST', '/tools/navigate', { session_id: id, url: 'http://127.0.0.1/' }],
      ['POST', '/tools/content', { session_id: id }],
      ['POST', '/tools/screenshot', { session_id: id }],
      ['POST', '/tools/execute-code', { session_id: id, code: '1' }],
      ['POST', '/tools/pdf', { session_id: id }],
    ] as const) {
      const res = await other(method, path, body ? { body } : {});
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await other('GET', '/sessions')).body.data).toEqual([]);
    expect((await api('GET', `/sessions/${id}`)).body.data.status).toBe('running');
    await api('DELETE', `/sessions/${id}`);
  });
});

describe('session timers on the emulator clock', () => {
  it('ends a session after the idle timeout, and activity postpones it', async () => {
    const local = await startFakeEmulator();
    try {
      const call = client(local.url, local.token);
      const { id } = (await create({}, call, local.proxyPassword)).body.data;
      await local.admin.advanceClock(6 * MINUTE);
      await call('POST', '/tools/content', { body: { session_id: id } });
      await local.admin.advanceClock(6 * MINUTE);
      expect((await call('GET', `/sessions/${id}`)).body.data.status).toBe('running');
      local.control.launched.at(-1)?.spec.onActivity?.();
      await local.admin.advanceClock(9 * MINUTE);
      expect((await call('GET', `/sessions/${id}`)).body.data.status).toBe('running');
      await local.admin.advanceClock(MINUTE);
      expect((await call('GET', `/sessions/${id}`)).body.data.status).toBe('ended');
      expect((await local.admin.state()).chromiumProcesses).toBe(0);
    } finally {
      await local.close();
    }
  });

  it('ends a busy session at its maximum duration, capped by the account limit', async () => {
    const local = await startFakeEmulator({ defaultLimits: { maxDurationMinutes: 20 } });
    try {
      const call = client(local.url, local.token);
      const capped = (await create({ max_duration_minutes: 60 }, call, local.proxyPassword)).body
        .data;
      const short = (await create({ max_duration_minutes: 5 }, call, local.proxyPassword)).body
        .data;
      // Busy all along (activity every few minutes): only the maximum duration can end them.
      for (const step of [4, 4, 4, 4, 3]) {
        await local.admin.advanceClock(step * MINUTE);
        for (const browser of local.control.launched) browser.spec.onActivity?.();
      }
      expect((await call('GET', `/sessions/${short.id}`)).body.data.status).toBe('ended');
      expect((await call('GET', `/sessions/${capped.id}`)).body.data.status).toBe('running');
      await local.admin.advanceClock(MINUTE);
      expect((await call('GET', `/sessions/${capped.id}`)).body.data.status).toBe('ended');
    } finally {
      await local.close();
    }
  });

  it('uses a shorter requested idle timeout and the per-account limits set by admin', async () => {
    const local = await startFakeEmulator();
    try {
      const { accountId, token, proxyPassword } = await local.admin.createAccount();
      await local.admin.updateAccount(accountId, { limits: { idleTimeoutMinutes: 3 } });
      const call = client(local.url, token);
      const a = (await create({ idle_timeout_minutes: 2 }, call, proxyPassword)).body.data;
      const b = (await create({ idle_timeout_minutes: 0 }, call, proxyPassword)).body.data;
      await local.admin.advanceClock(2 * MINUTE);
      expect((await call('GET', `/sessions/${a.id}`)).body.data.status).toBe('ended');
      expect((await call('GET', `/sessions/${b.id}`)).body.data.status).toBe('running');
      await local.admin.advanceClock(MINUTE);
      expect((await call('GET', `/sessions/${b.id}`)).body.data.status).toBe('ended');
    } finally {
      await local.close();
    }
  });

  it('reports a session as 404 once it is 3 days past its end', async () => {
    const local = await startFakeEmulator();
    try {
      const call = client(local.url, local.token);
      const { id } = (await create({}, call, local.proxyPassword)).body.data;
      await call('DELETE', `/sessions/${id}`);
      await local.admin.advanceClock(3 * 24 * 60 * MINUTE - 1000);
      expect((await call('GET', `/sessions/${id}`)).status).toBe(200);
      await local.admin.advanceClock(1000);
      expect((await call('GET', `/sessions/${id}`)).status).toBe(404);
      expect((await call('GET', `/sessions/${id}/recordings`)).status).toBe(404);
      expect((await call('GET', '/sessions')).body.data).toEqual([]);
    } finally {
      await local.close();
    }
  });

  it('ends a session whose browser died on its own', async () => {
    const { id } = (await create()).body.data;
    emu.control.launched.at(-1)?.crash();
    await new Promise((r) => setTimeout(r, 20));
    expect((await api('GET', `/sessions/${id}`)).body.data.status).toBe('ended');
  });
});
