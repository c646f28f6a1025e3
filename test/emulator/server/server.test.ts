import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveOptions } from '../../../src/emulator/options.js';
import { createCdpProxy, createLiveView } from '../../../src/emulator/runtime/index.js';
import { type EmulatorHandle, startWithParts } from '../../../src/emulator/start.js';
import { VERSION } from '../../../src/version.js';
import { API, call, client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';
import { fakeParts } from '../helpers/fake-runtime.js';

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

/** A raw request with any headers (a foreign Host, an Origin); undici would not send some. */
function raw(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: any; text: string }> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => {
        let parsed: any;
        try {
          parsed = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A websocket upgrade request; resolves with the status it was refused with (or 101). */
function upgrade(origin: string, path: string, headers: Record<string, string> = {}) {
  const { port } = new URL(origin);
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101, body: undefined });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The control plane with the real CDP proxy and live view over the fake runtime. */
async function withRealProxy() {
  const parts = fakeParts();
  return startWithParts(resolveOptions({}), {
    ...parts,
    createProxy: createCdpProxy,
    createLiveView,
  });
}

/** The emulator still answers, and a session can still be made and driven. */
async function expectAlive({ url, token, proxyPassword }: EmulatorHandle) {
  const drive = client(url, token);
  const created = await drive('POST', '/sessions', { body: { proxy_password: proxyPassword } });
  expect(created.status).toBe(200);
  const action = await drive('POST', '/tools/content', {
    body: { session_id: created.body.data.id },
  });
  expect(action.status, action.text).toBe(200);
  expect((await drive('DELETE', `/sessions/${created.body.data.id}`)).status).toBe(200);
}

describe('never dies of a request', () => {
  it('answers an upgrade of `//` with 400 and stays up', async () => {
    const refused = await upgrade(emu.url, '//');
    expect(refused.status).toBe(400);
    await expectAlive(emu);
  });

  it('answers an HTTP request for `//` and a bad percent-escape with 400', async () => {
    expect((await raw(emu.url, 'GET', '//')).status).toBe(400);
    const bad = await raw(emu.url, 'GET', `${API}/sessions/%E0%A4%A`);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(['error']);
    await expectAlive(emu);
  });

  it('answers a CDP upgrade with a truncated percent-escape (/cdp/%E0%A4%A) with 400 and stays up', async () => {
    const emulator = await withRealProxy();
    try {
      const refused = await upgrade(emulator.url, '/cdp/%E0%A4%A?token=x');
      expect(refused.status).toBe(400);
      await expectAlive(emulator);
    } finally {
      await emulator.close();
    }
  });

  it('refuses a non-ASCII access token of the right length with 401 and stays up', async () => {
    const emulator = await withRealProxy();
    try {
      const drive = client(emulator.url, emulator.token);
      const created = await drive('POST', '/sessions', {
        body: { proxy_password: emulator.proxyPassword },
      });
      const cdpUrl = new URL(created.body.data.cdp_url);
      const length = cdpUrl.searchParams.get('token')!.length;
      const guess = encodeURIComponent('\u00e9'.repeat(length));
      const refused = await upgrade(emulator.url, `${cdpUrl.pathname}?token=${guess}`);
      expect(refused.status).toBe(401);
      const json = await raw(emulator.url, 'GET', `${cdpUrl.pathname}/json/version?token=${guess}`);
      expect(json.status).toBe(401);
      await expectAlive(emulator);
    } finally {
      await emulator.close();
    }
  });
});

describe('answers only its own origin', () => {
  const port = () => new URL(emu.url).port;

  it('refuses a foreign Host (DNS rebinding) with 403 in the flat error shape', async () => {
    const rebound = await raw(
      emu.url,
      'POST',
      '/_emulator/accounts',
      {
        host: `rebind.attacker.example:${port()}`,
        'content-type': 'application/json',
      },
      '{}',
    );
    expect(rebound.status).toBe(403);
    expect(Object.keys(rebound.body)).toEqual(['error']);
    expect(rebound.body.error).toMatch(/Host/);
    expect(rebound.text).not.toMatch(/token|proxyPassword/);
    const wrongPort = await raw(emu.url, 'GET', `${API}/proxy/options`, {
      host: '127.0.0.1:1',
      authorization: `Bearer ${emu.token}`,
    });
    expect(wrongPort.status).toBe(403);
  });

  it('refuses a rebinding upgrade to the CDP proxy with 403', async () => {
    const refused = await upgrade(emu.url, '/cdp/some-id?token=x', {
      host: `rebind.attacker.example:${port()}`,
    });
    expect(refused.status).toBe(403);
  });

  it('answers 127.0.0.1, localhost and [::1] with its own port', async () => {
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) {
      const res = await raw(emu.url, 'GET', `${API}/proxy/options`, {
        host: `${name}:${port()}`,
        authorization: `Bearer ${emu.token}`,
      });
      expect(res.status, name).toBe(200);
    }
  });

  it('refuses a request whose Origin is another site with 403, in the account service its own shape', async () => {
    const crossSite = await raw(emu.url, 'GET', `${API}/sessions`, {
      origin: 'https://attacker.example',
      authorization: `Bearer ${emu.token}`,
    });
    expect(crossSite.status).toBe(403);
    const nullOrigin = await raw(emu.url, 'GET', `${API}/sessions`, {
      origin: 'null',
      authorization: `Bearer ${emu.token}`,
    });
    expect(nullOrigin.status).toBe(403);
    const account = await raw(emu.url, 'GET', '/api/v2/base/llm/credits/', {
      origin: 'http://attacker.example',
      authorization: `x-api-key ${emu.apiKey}`,
    });
    expect(account.status).toBe(403);
    const sameSite = await raw(emu.url, 'GET', `${API}/proxy/options`, {
      origin: `http://localhost:${port()}`,
      authorization: `Bearer ${emu.token}`,
    });
    expect(sameSite.status).toBe(200);
  });

  it('refuses a POST body that is not application/json with 415', async () => {
    const plain = await raw(
      emu.url,
      'POST',
      `${API}/profiles`,
      {
        'content-type': 'text/plain',
        authorization: `Bearer ${emu.token}`,
      },
      '{"name":"via-text-plain"}',
    );
    expect(plain.status).toBe(415);
    const untyped = await raw(
      emu.url,
      'POST',
      `${API}/profiles`,
      {
        authorization: `Bearer ${emu.token}`,
        'content-length': '26',
      },
      '{"name":"via-no-type-set"}',
    );
    expect(untyped.status).toBe(415);
    const json = await api('POST', '/profiles', { body: { name: 'via-json' } });
    expect(json.status).toBe(200);
    const names = (await api('GET', '/profiles')).body.data.map((p: any) => p.name);
    expect(names).toEqual(expect.arrayContaining(['via-json']));
    expect(names).not.toContain('via-text-plain');
  });
});

describe('exposed beyond loopback', () => {
  it('binds a non-loopback host only with expose, says loudly what is exposed, and still refuses rebinding names', async () => {
    const logged: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let exposed: FakeEmulator | undefined;
    try {
      exposed = await startFakeEmulator({
        host: '0.0.0.0',
        expose: true,
        logger: (level, message) => void logged.push(`${level}: ${message}`),
      });
      const warning = logged.find((line) => line.startsWith('warn: WARNING'));
      expect(warning).toMatch(/exposed on 0\.0\.0\.0/);
      expect(warning).toMatch(/admin API without auth/);
      expect(stderr.mock.calls.map(([chunk]) => String(chunk)).join('')).toContain(
        warning!.slice('warn: '.length),
      );
      const port = new URL(exposed.url).port;
      expect((await exposed.admin.state()).accounts).toBe(1);
      const byIp = await raw(exposed.url, 'GET', '/_emulator/state', { host: `127.0.0.1:${port}` });
      expect(byIp.status).toBe(200);
      const rebound = await raw(exposed.url, 'GET', '/_emulator/state', {
        host: `rebind.attacker.example:${port}`,
      });
      expect(rebound.status).toBe(403);
    } finally {
      stderr.mockRestore();
      await exposed?.close();
    }
  });
});
