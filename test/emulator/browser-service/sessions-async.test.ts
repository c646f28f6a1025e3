/**
 * `/sessions-async` (sessions-async.ts) over the emulator's real HTTP server: the create is
 * queued at once and its outcome polled, first through the library's own client as a user
 * writes it (`createAsync()` then `waitForAsync()`), then each answer of the poll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AsyncSessionError, BrowserApi } from '../../../src/browser-api/index.js';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

let emu: FakeEmulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  emu = await startFakeEmulator();
  api = client(emu.url, emu.token);
});
afterAll(async () => {
  await emu.close();
});

async function pollUntilSettled(requestId: string, caller = api): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const poll = (await caller('GET', `/sessions-async/${requestId}`)).body.data;
    if (poll.status !== 'pending') return poll;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`request ${requestId} still pending`);
}

describe('the library client', () => {
  it('creates a session with createAsync() and waitForAsync(), and a failed launch is an AsyncSessionError', async () => {
    const browserApi = new BrowserApi({
      baseUrl: emu.url,
      token: emu.token,
      proxyPassword: emu.proxyPassword,
    });
    const { request_id } = await browserApi.sessions.createAsync({ country: 'US' });
    const session = await browserApi.sessions.waitForAsync(request_id, { intervalMs: 20 });
    expect(session.status).toBe('running');
    expect((await browserApi.sessions.retrieve(session.id)).status).toBe('running');
    await browserApi.sessions.end(session.id);

    emu.control.failNextLaunch = true;
    const failing = await browserApi.sessions.createAsync({});
    const error = await browserApi.sessions
      .waitForAsync(failing.request_id, { intervalMs: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AsyncSessionError);
  });
});

describe('asynchronous create', () => {
  it('returns a request_id at once and the poll reports the created session', async () => {
    const res = await api('POST', '/sessions-async', {
      body: { proxy_password: emu.proxyPassword },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ request_id: expect.any(String) });
    let poll: any;
    for (let i = 0; i < 50; i++) {
      poll = (await api('GET', `/sessions-async/${res.body.data.request_id}`)).body.data;
      if (poll.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(poll).toEqual({
      request_id: res.body.data.request_id,
      status: 'completed',
      session: { id: expect.any(String), cdp_url: expect.any(String), status: 'running' },
    });
    await api('DELETE', `/sessions/${poll.session.id}`);
  });

  it('reports a launch that failed with its error and status', async () => {
    emu.control.failNextLaunch = true;
    const { request_id } = (
      await api('POST', '/sessions-async', { body: { proxy_password: emu.proxyPassword } })
    ).body.data;
    await new Promise((r) => setTimeout(r, 50));
    const poll = (await api('GET', `/sessions-async/${request_id}`)).body.data;
    expect(poll).toEqual({
      request_id,
      status: 'failed',
      error: expect.any(String),
      error_status: 502,
    });
  });

  it("answers a bad body with 400 at once, and an unknown or another account's request with 404", async () => {
    expect((await api('POST', '/sessions-async', { body: {} })).status).toBe(400);
    expect((await api('GET', '/sessions-async/nope')).status).toBe(404);
    const { request_id } = (
      await api('POST', '/sessions-async', { body: { proxy_password: emu.proxyPassword } })
    ).body.data;
    const { token } = await emu.admin.createAccount();
    expect((await client(emu.url, token)('GET', `/sessions-async/${request_id}`)).status).toBe(404);
  });
});

describe('what the poll reports', () => {
  it('a create over the session limit as failed with its 429, and a session ended since without its cdp_url', async () => {
    const { token, proxyPassword } = await emu.admin.createAccount({
      limits: { concurrentSessions: 1 },
    });
    const other = client(emu.url, token);
    const first = (
      await other('POST', '/sessions-async', { body: { proxy_password: proxyPassword } })
    ).body.data.request_id as string;
    const second = (
      await other('POST', '/sessions-async', { body: { proxy_password: proxyPassword } })
    ).body.data.request_id as string;
    const [a, b] = [await pollUntilSettled(first, other), await pollUntilSettled(second, other)];
    const [done, refused] = a.status === 'completed' ? [a, b] : [b, a];
    expect(done.status).toBe('completed');
    expect(refused).toEqual({
      request_id: expect.any(String),
      status: 'failed',
      error: expect.any(String),
      error_status: 429,
    });

    await other('DELETE', `/sessions/${done.session.id}`);
    const after = (await other('GET', `/sessions-async/${done.request_id}`)).body.data;
    expect(after).toEqual({
      request_id: done.request_id,
      status: 'completed',
      session: { id: done.session.id, status: 'ended' },
    });
  });
});
