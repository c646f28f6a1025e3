import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { call, client, startFakeEmulator } from './helpers/emulator.js';

describe('admin API', () => {
  it('creates accounts with their own credentials and limits', async () => {
    const emu = await startFakeEmulator();
    try {
      const created = await call(emu.url, 'POST', '/_emulator/accounts', {
        body: { purchased: false, balance: 5, limits: { concurrentSessions: 1 } },
      });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({
        accountId: expect.any(String),
        token: expect.any(String),
        proxyPassword: expect.any(String),
        apiKey: expect.any(String),
      });
      expect(created.body.token).not.toBe(emu.token);
      const account = await call(emu.url, 'GET', `/_emulator/accounts/${created.body.accountId}`);
      expect(account.body).toMatchObject({
        purchased: false,
        balance: 5,
        limits: { concurrentSessions: 1, profiles: 10 },
      });
      const bad = await call(emu.url, 'POST', '/_emulator/accounts', {
        body: { limits: { profiles: -1 } },
      });
      expect(bad.status).toBe(400);
      expect((await call(emu.url, 'POST', '/_emulator/accounts/nope/token')).status).toBe(404);
    } finally {
      await emu.close();
    }
  });

  it('turns the flaky mode on and off, and refuses a bad interval naming the field in the client words', async () => {
    const emu = await startFakeEmulator();
    try {
      const flaky = (body: unknown) => call(emu.url, 'POST', '/_emulator/flaky', { body });
      expect((await flaky({ meanIntervalMs: 60_000 })).body).toEqual({ meanIntervalMs: 60_000 });
      expect((await call(emu.url, 'GET', '/_emulator/state')).body.flakyMeanIntervalMs).toBe(
        60_000,
      );
      expect((await flaky({ meanIntervalMs: null })).body).toEqual({ meanIntervalMs: null });
      expect((await call(emu.url, 'GET', '/_emulator/state')).body.flakyMeanIntervalMs).toBe(null);
      const bad = await flaky({ meanIntervalMs: -1 });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ error: 'meanIntervalMs must be > 0 (got -1)' });
    } finally {
      await emu.close();
    }
  });

  it('publishes a host on the emulator internet, and refuses a bad one naming the host and the rule', async () => {
    const emu = await startFakeEmulator({ internet: { 'shop.test': 'http://127.0.0.1:4000' } });
    try {
      expect(await emu.admin.publish('late.test', 'https://127.0.0.1:4443')).toEqual({
        'shop.test': 'http://127.0.0.1:4000',
        'late.test': 'https://127.0.0.1:4443',
      });
      const listed = await call(emu.url, 'GET', '/_emulator/internet');
      expect(Object.keys(listed.body.sites)).toEqual(['shop.test', 'late.test']);
      const bad = await call(emu.url, 'POST', '/_emulator/internet', {
        body: { host: 'bad.test', target: 'http://127.0.0.1:1/path' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/bad\.test: target must be an http:\/\/ or https:\/\/ origin/);
      await expect(emu.admin.publish('exit.test', 'http://127.0.0.1:1')).rejects.toThrow(/400/);
    } finally {
      await emu.close();
    }
  });

  it('moves the clock forward and reports the new time', async () => {
    const emu = await startFakeEmulator();
    try {
      const before = Date.parse((await emu.admin.state()).now);
      const now = await emu.admin.advanceClock(3_600_000);
      expect(Date.parse(now) - before).toBeGreaterThanOrEqual(3_600_000);
      expect(
        (await call(emu.url, 'POST', '/_emulator/clock', { body: { advanceMs: -5 } })).status,
      ).toBe(400);
    } finally {
      await emu.close();
    }
  });

  it('reports state, and reset ends every session, rewinds the clock and keeps only the default account', async () => {
    const emu = await startFakeEmulator();
    try {
      const api = client(emu.url, emu.token);
      await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } });
      await api('POST', '/profiles', { body: { name: 'gone after reset' } });
      const { token } = await emu.admin.createAccount();
      await emu.admin.injectFault({ path: '/x', status: 500 });
      expect(await emu.admin.state()).toMatchObject({
        runningSessions: 1,
        chromiumProcesses: 1,
        sessions: 1,
        recordingsAvailable: true,
        version: VERSION,
      });
      // Past the token validity: reset brings the clock back, so the default token works again.
      await emu.admin.advanceClock(8 * 24 * 3_600_000);
      await emu.admin.reset();
      expect(await emu.admin.state()).toMatchObject({
        runningSessions: 0,
        chromiumProcesses: 0,
        sessions: 0,
        profiles: 0,
        accounts: 1,
        pendingFaults: 0,
      });
      expect((await api('GET', '/profiles')).body.data).toEqual([]);
      expect((await client(emu.url, token)('GET', '/profiles')).status).toBe(401);
    } finally {
      await emu.close();
    }
  });

  it('logs once that recordings are off, and never logs a credential', async () => {
    const lines: string[] = [];
    const emu = await startFakeEmulator(
      { logger: (level, message) => lines.push(`${level} ${message}`) },
      (control) => {
        control.recordingsAvailable = false;
      },
    );
    try {
      const api = client(emu.url, emu.token);
      const { id } = (
        await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } })
      ).body.data;
      await api('DELETE', `/sessions/${id}`);
      await call(emu.url, 'GET', '/api/v2/browser/sessions', {
        token: 'bt_wrong-token-for-the-log',
      });
      expect(lines.filter((l) => l.includes('recordings are off'))).toHaveLength(1);
      const all = lines.join('\n');
      for (const secret of [emu.token, emu.proxyPassword, 'bt_wrong-token-for-the-log']) {
        expect(all).not.toContain(secret);
      }
    } finally {
      await emu.close();
    }
  });

  it('closes through Symbol.asyncDispose like close()', async () => {
    const emu = await startFakeEmulator();
    const api = client(emu.url, emu.token);
    await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } });
    await emu[Symbol.asyncDispose]();
    expect(emu.control.launched.every((b) => !b.alive)).toBe(true);
    await expect(fetch(`${emu.url}/_emulator/state`)).rejects.toThrow();
  });

  it('serves a synthetic recording of the size asked for, listed and downloadable like any other, until reset', async () => {
    const emu = await startFakeEmulator();
    try {
      const api = client(emu.url, emu.token);
      const size = 3 * 1024 * 1024 + 5;
      const { sessionId, recordingId } = await emu.admin.addRecording({ sizeBytes: size });
      expect((await api('GET', `/sessions/${sessionId}`)).body.data.status).toBe('ended');
      const [recording] = (await api('GET', `/sessions/${sessionId}/recordings`)).body.data;
      expect(recording).toMatchObject({ id: recordingId, is_primary: true, size_bytes: size });
      const whole = await fetch(recording.video_url);
      const bytes = Buffer.from(await whole.arrayBuffer());
      expect(bytes.length).toBe(size);
      expect(bytes.every((b) => b === 0)).toBe(true);
      const tail = await fetch(recording.video_url, { headers: { range: 'bytes=-5' } });
      expect(tail.status).toBe(206);
      expect((await tail.arrayBuffer()).byteLength).toBe(5);

      const other = await emu.admin.createAccount();
      const theirs = await emu.admin.addRecording({ sizeBytes: 1, accountId: other.accountId });
      expect((await api('GET', `/sessions/${theirs.sessionId}/recordings`)).status).toBe(404);
      const bad = await call(emu.url, 'POST', '/_emulator/recordings', { body: { sizeBytes: -1 } });
      expect(bad.status).toBe(400);
      const unknown = await call(emu.url, 'POST', '/_emulator/recordings', {
        body: { sizeBytes: 1, accountId: 'nope' },
      });
      expect(unknown.status).toBe(404);

      await emu.admin.reset();
      expect((await api('GET', `/sessions/${sessionId}/recordings`)).status).toBe(404);
      expect((await fetch(recording.video_url)).status).toBe(404);
    } finally {
      await emu.close();
    }
  });

  it('refuses what a web page can send: a cross-site POST, a text/plain body', async () => {
    const emu = await startFakeEmulator();
    try {
      const before = (await emu.admin.state()).accounts;
      // What a page's `fetch(…, { method: 'POST', mode: 'no-cors', body })` sends.
      const crossSite = await call(emu.url, 'POST', '/_emulator/accounts', {
        rawBody: '{}',
        headers: { 'content-type': 'text/plain', origin: 'https://attacker.example' },
      });
      expect(crossSite.status).toBe(403);
      expect(crossSite.body).toEqual({ error: expect.any(String) });
      const plain = await call(emu.url, 'POST', '/_emulator/clock', {
        rawBody: '{"advanceMs":86400000}',
        headers: { 'content-type': 'text/plain' },
      });
      expect(plain.status).toBe(415);
      const formReset = await call(emu.url, 'POST', '/_emulator/reset', {
        rawBody: 'a=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(formReset.status).toBe(415);
      const crossSiteFault = await call(emu.url, 'POST', '/_emulator/faults', {
        body: { path: '*', status: 500 },
        headers: { origin: 'http://127.0.0.1.attacker.example' },
      });
      expect(crossSiteFault.status).toBe(403);
      const state = await emu.admin.state();
      expect(state.accounts).toBe(before);
      expect(state.pendingFaults).toBe(0);
      expect(Math.abs(Date.parse(state.now) - Date.now())).toBeLessThan(60_000);
    } finally {
      await emu.close();
    }
  });

  it('takes a fault path of many * without stalling: the next request answers at once', async () => {
    const emu = await startFakeEmulator();
    try {
      await emu.admin.injectFault({ path: '*a'.repeat(80), status: 500 });
      const started = performance.now();
      const res = await call(emu.url, 'GET', `/api/v2/browser/${'a'.repeat(2000)}b`);
      expect(res.status).toBe(404);
      expect(performance.now() - started).toBeLessThan(1000);
      const tooLong = await call(emu.url, 'POST', '/_emulator/faults', {
        body: { path: '*'.repeat(2049), status: 500 },
      });
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.error).toContain('path');
    } finally {
      await emu.close();
    }
  });
});
