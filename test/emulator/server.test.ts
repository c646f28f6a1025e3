import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { API, call, client, type FakeEmulator, startFakeEmulator } from './helpers/emulator.js';

let emu: FakeEmulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  emu = await startFakeEmulator();
  api = client(emu.url, emu.token);
});
afterAll(async () => {
  await emu.close();
});

describe('emulator server', () => {
  it('binds loopback on a free port and stamps X-Emulator-Version on every response', async () => {
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emu.browserUrl).toBe(emu.url);
    expect(emu.accountUrl).toBe(emu.url);
    const ok = await api('GET', '/proxy/options');
    const missing = await call(emu.url, 'GET', '/nowhere');
    expect(ok.headers['x-emulator-version']).toBe(VERSION);
    expect(missing.headers['x-emulator-version']).toBe(VERSION);
  });

  it('answers an unknown route with 404 and the flat error shape', async () => {
    const res = await api('GET', '/no-such-thing');
    expect(res.status).toBe(404);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(typeof res.body.error).toBe('string');
  });

  it('answers malformed JSON with 400 without quoting the body', async () => {
    const res = await api('POST', '/sessions', {
      rawBody: `{"proxy_password": "${emu.proxyPassword}",`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain(emu.proxyPassword);
  });

  it("words a malformed body in each service's own error shape", async () => {
    const raw = { rawBody: '{"questions": [', headers: { 'content-type': 'application/json' } };
    const browser = await call(emu.url, 'POST', `${API}/sessions`, raw);
    expect(browser.status).toBe(400);
    expect(Object.keys(browser.body)).toEqual(['error']);
    const account = await call(emu.url, 'POST', '/api/v2/base/llm/submit/', {
      ...raw,
      headers: { ...raw.headers, authorization: `x-api-key ${emu.apiKey}` },
    });
    expect(account.status).toBe(400);
    expect(account.body).toEqual({ non_field_errors: [expect.any(String)] });
    const unknown = await call(emu.url, 'GET', '/api/v2/base/nowhere');
    expect(unknown.status).toBe(404);
    expect(Object.keys(unknown.body)).toEqual(['error']);
  });

  it('refuses a websocket upgrade on an unknown path with 404, version header included', async () => {
    const { request } = await import('node:http');
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = request(`${emu.url}/not-a-cdp-path`, {
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      req.on('response', resolve);
      req.on('upgrade', () => reject(new Error('upgraded')));
      req.on('error', reject);
      req.end();
    });
    expect(response.statusCode).toBe(404);
    expect(response.headers['x-emulator-version']).toBe(VERSION);
    response.resume();
  });

  it('answers a non-object JSON body with 400', async () => {
    const res = await api('POST', '/profiles', { body: [1, 2] });
    expect(res.status).toBe(400);
  });
});

describe('authentication', () => {
  it('answers a missing Authorization header with 401', async () => {
    const res = await call(emu.url, 'GET', `${API}/sessions`);
    expect(res.status).toBe(401);
    expect(res.body.error).toContain('Authorization');
  });

  it('answers a wrong token with 401 that never repeats the token', async () => {
    const wrong = 'bt_this-is-not-a-valid-token-123';
    const res = await call(emu.url, 'GET', `${API}/sessions`, { token: wrong });
    expect(res.status).toBe(401);
    expect(res.text).not.toContain(wrong);
  });

  it('answers a non-Bearer header with 401', async () => {
    const res = await call(emu.url, 'GET', `${API}/profiles`, {
      headers: { authorization: `Basic ${emu.token}` },
    });
    expect(res.status).toBe(401);
    expect(res.text).not.toContain(emu.token);
  });

  it('expires a token after 7 days of emulator clock, says so, and accepts a freshly issued one', async () => {
    const other = await startFakeEmulator();
    try {
      const { accountId, token } = await other.admin.createAccount();
      const before = await call(other.url, 'GET', `${API}/profiles`, { token });
      expect(before.status).toBe(200);
      await other.admin.advanceClock(7 * 24 * 3600_000);
      const after = await call(other.url, 'GET', `${API}/profiles`, { token });
      expect(after.status).toBe(401);
      expect(after.body.error).toMatch(/expired/);
      expect(after.body.error).toMatch(/dashboard/);
      expect(after.text).not.toContain(token);
      const fresh = await other.admin.issueToken(accountId);
      expect((await call(other.url, 'GET', `${API}/profiles`, { token: fresh })).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('fault injection', () => {
  it('answers with the injected status and body instead of running the handler', async () => {
    await emu.admin.injectFault({
      method: 'POST',
      path: `${API}/profiles`,
      status: 503,
      body: { error: 'down', reason: 'maintenance', retry_after: 1 },
    });
    const res = await api('POST', '/profiles', { body: { name: 'fault-1' } });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'down', reason: 'maintenance', retry_after: 1 });
    const list = await api('GET', '/profiles');
    expect(list.body.data.map((p: any) => p.name)).not.toContain('fault-1');
    expect(await emu.admin.listFaults()).toEqual([]);
  });

  it('matches wildcards and applies count times', async () => {
    await emu.admin.injectFault({ path: `${API}/locations/*`, status: 502, count: 2 });
    expect((await api('GET', '/locations/countries')).status).toBe(502);
    expect((await api('GET', '/locations/regions?country=us')).status).toBe(502);
    expect((await api('GET', '/locations/countries')).status).toBe(200);
  });

  it('delays a response by delayMs', async () => {
    await emu.admin.injectFault({ path: `${API}/proxy/options`, delayMs: 300 });
    const started = Date.now();
    const res = await api('GET', '/proxy/options');
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('drops the connection before handling, so nothing happens', async () => {
    await emu.admin.injectFault({ method: 'POST', path: `${API}/profiles`, dropConnection: true });
    await expect(api('POST', '/profiles', { body: { name: 'dropped-before' } })).rejects.toThrow();
    const list = await api('GET', '/profiles');
    expect(list.body.data.map((p: any) => p.name)).not.toContain('dropped-before');
  });

  it('drops the connection after handling: the work is done but the answer never arrives', async () => {
    await emu.admin.injectFault({
      method: 'POST',
      path: `${API}/profiles`,
      dropConnection: true,
      afterHandling: true,
    });
    await expect(api('POST', '/profiles', { body: { name: 'dropped-after' } })).rejects.toThrow();
    const list = await api('GET', '/profiles');
    expect(list.body.data.map((p: any) => p.name)).toContain('dropped-after');
  });

  it('answers with a status after the handler ran when afterHandling is set', async () => {
    await emu.admin.injectFault({
      method: 'POST',
      path: `${API}/profiles`,
      status: 502,
      afterHandling: true,
    });
    const res = await api('POST', '/profiles', { body: { name: 'answered-502' } });
    expect(res.status).toBe(502);
    const list = await api('GET', '/profiles');
    expect(list.body.data.map((p: any) => p.name)).toContain('answered-502');
  });

  it('lists pending faults and clears them', async () => {
    await emu.admin.injectFault({ path: '/x', status: 500, count: 3 });
    expect(await emu.admin.listFaults()).toMatchObject([{ path: '/x', remaining: 3 }]);
    await emu.admin.clearFaults();
    expect(await emu.admin.listFaults()).toEqual([]);
  });

  it('never faults the admin API itself', async () => {
    await emu.admin.injectFault({ path: '*', status: 500, count: 5 });
    expect((await emu.admin.state()).pendingFaults).toBe(1);
    await emu.admin.clearFaults();
  });
});
