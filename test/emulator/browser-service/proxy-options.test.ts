/**
 * `GET /proxy/options` (proxy-options.ts) on the emulator's real server, read as a user reads it
 * (`BrowserApi.proxy.options()`): the vocabulary that targeting accepts, one default per list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../../src/browser-api/index.js';
import { AuthenticationError } from '../../../src/http/index.js';
import { type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

let emu: FakeEmulator;
beforeAll(async () => {
  emu = await startFakeEmulator();
});
afterAll(async () => {
  await emu.close();
});

const apiWith = (token: string) =>
  new BrowserApi({ baseUrl: emu.url, token, proxyPassword: emu.proxyPassword });

describe('GET /proxy/options', () => {
  it('lists every choice of each targeting field, with exactly one default per list', async () => {
    const options = await apiWith(emu.token).proxy.options();
    const values = (items: { value: string }[]) => items.map((i) => i.value);
    expect(values(options.connection_types)).toEqual(['residential', 'mobile']);
    expect(values(options.session_types)).toEqual(['sticky', 'rotating', 'no_rotating']);
    expect(values(options.protocols)).toEqual(['http', 'socks5']);
    expect(values(options.filter_modes)).toEqual(['quality', 'quality_speed', 'speed', 'none']);
    expect(options.location_levels).toEqual([
      'countries',
      'regions',
      'cities',
      'isps',
      'zip-codes',
    ]);
    expect(options.filter_levels).toEqual({ quality: 'medium', speed: 'fast' });
    for (const list of [
      options.connection_types,
      options.session_types,
      options.protocols,
      options.filter_modes,
    ]) {
      expect(list.filter((i) => i.default === true)).toHaveLength(1);
      for (const item of list) expect(item.label).toEqual(expect.any(String));
    }
  });

  it('offers only choices a session create accepts', async () => {
    const api = apiWith(emu.token);
    const options = await api.proxy.options();
    const choices = [
      ...options.connection_types.map((i) => ({ connection_type: i.value })),
      ...options.session_types.map((i) => ({ session_type: i.value })),
      ...options.protocols.map((i) => ({ protocol: i.value })),
      ...options.filter_modes.map((i) => ({ filter_mode: i.value })),
    ];
    for (const choice of choices) {
      const session = await api.sessions.create(choice as never);
      expect(session.status, JSON.stringify(choice)).toBe('running');
      await api.sessions.end(session.id);
    }
  });

  it('needs the account token', async () => {
    await expect(apiWith('not-a-token').proxy.options()).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });
});
