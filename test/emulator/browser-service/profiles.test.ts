import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('profiles', () => {
  it('creates a profile with defaults, fetches it, lists it, renames it and deletes it', async () => {
    const created = await api('POST', '/profiles', { body: { name: 'crud' } });
    expect(created.status).toBe(200);
    const profile = created.body.data;
    expect(profile).toEqual({
      id: expect.any(String),
      name: 'crud',
      description: '',
      created_at: expect.stringMatching(/Z$/),
      pin_ip: false,
      store_cache: false,
    });
    expect((await api('GET', `/profiles/${profile.id}`)).body.data).toEqual(profile);
    expect((await api('GET', '/profiles')).body.data).toContainEqual(profile);
    const patched = await api('PATCH', `/profiles/${profile.id}`, {
      body: { name: 'crud-2', description: 'renamed' },
    });
    expect(patched.body.data).toMatchObject({ name: 'crud-2', description: 'renamed' });
    expect((await api('DELETE', `/profiles/${profile.id}`)).body).toEqual({
      data: { status: 'success' },
    });
    expect((await api('GET', `/profiles/${profile.id}`)).status).toBe(404);
  });

  it('answers a duplicate name with 409, on create and on rename', async () => {
    await api('POST', '/profiles', { body: { name: 'dup-a' } });
    const b = (await api('POST', '/profiles', { body: { name: 'dup-b' } })).body.data;
    expect((await api('POST', '/profiles', { body: { name: 'dup-a' } })).status).toBe(409);
    expect((await api('PATCH', `/profiles/${b.id}`, { body: { name: 'dup-a' } })).status).toBe(409);
    expect((await api('PATCH', `/profiles/${b.id}`, { body: { name: 'dup-b' } })).status).toBe(200);
  });

  it('answers a missing or mistyped field with 400 and refuses to patch create-time options', async () => {
    expect((await api('POST', '/profiles', { body: {} })).status).toBe(400);
    expect((await api('POST', '/profiles', { body: { name: 5 } })).status).toBe(400);
    expect(
      (await api('POST', '/profiles', { body: { name: 'x', store_cache: 'yes' } })).status,
    ).toBe(400);
    const p = (await api('POST', '/profiles', { body: { name: 'patch-rules' } })).body.data;
    const res = await api('PATCH', `/profiles/${p.id}`, { body: { store_cache: true } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('store_cache');
  });

  it('answers the profile limit with 429, limit_type profiles and Retry-After', async () => {
    const { token } = await emu.admin.createAccount({ limits: { profiles: 2 } });
    const other = client(emu.url, token);
    await other('POST', '/profiles', { body: { name: 'one' } });
    await other('POST', '/profiles', { body: { name: 'two' } });
    const res = await other('POST', '/profiles', { body: { name: 'three' } });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      error: expect.any(String),
      limit_type: 'profiles',
      current_usage: 2,
      limit: 2,
      retry_after: expect.any(Number),
    });
    expect(res.headers['retry-after']).toBe(String(res.body.retry_after));
  });

  it('allows ten profiles by default', async () => {
    const { token } = await emu.admin.createAccount();
    const other = client(emu.url, token);
    for (let i = 0; i < 10; i++) {
      expect((await other('POST', '/profiles', { body: { name: `p${i}` } })).status).toBe(200);
    }
    expect((await other('POST', '/profiles', { body: { name: 'p10' } })).status).toBe(429);
  });

  it("answers another account's profile with 404 everywhere", async () => {
    const mine = (await api('POST', '/profiles', { body: { name: 'private' } })).body.data;
    const { token } = await emu.admin.createAccount();
    const other = client(emu.url, token);
    expect((await other('GET', `/profiles/${mine.id}`)).status).toBe(404);
    expect(
      (await other('PATCH', `/profiles/${mine.id}`, { body: { name: 'stolen' } })).status,
    ).toBe(404);
    expect((await other('DELETE', `/profiles/${mine.id}`)).status).toBe(404);
    expect((await other('GET', '/profiles')).body.data).toEqual([]);
    expect((await other('POST', '/profiles', { body: { name: 'private' } })).status).toBe(200);
  });
});
