import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';

// Three edits to the client's contract, as a change to src/browser-api/schemas would make them:
// a protocol the service starts to offer, a filter mode it drops, and session limits that may no
// longer be 0. The emulator's targeting check reads the session body with these schemas.
vi.mock('../../../src/browser-api/schemas/vocabulary.js', async (importOriginal) => {
  const real =
    await importOriginal<typeof import('../../../src/browser-api/schemas/vocabulary.js')>();
  const { lazySchema, zod } = await import('../../../src/http/lazy-schema.js');
  return {
    ...real,
    ProtocolSchema: lazySchema(() => zod().enum(['http', 'socks5', 'socks4'])),
    FilterModeSchema: lazySchema(() => zod().enum(['quality', 'quality_speed', 'none'])),
    MinutesSchema: lazySchema(() => zod().number().int().min(1)),
  };
});

let emu: FakeEmulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  emu = await startFakeEmulator();
  api = client(emu.url, emu.token);
});
afterAll(async () => {
  await emu.close();
});

const validate = async (body: Record<string, unknown>) =>
  (await api('POST', '/configurations/validate', { body })).body.data;
const create = (body: Record<string, unknown>) =>
  api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword, ...body } });

describe('the targeting check follows a change to the client schemas', () => {
  it('accepts a protocol the client enum gained, in validate, create and the options', async () => {
    const checked = await validate({ protocol: 'socks4' });
    expect(checked.valid).toBe(true);
    expect(checked.normalized.protocol).toBe('socks4');

    const created = await create({ protocol: 'socks4' });
    expect(created.status).toBe(200);
    const session = await api('GET', `/sessions/${created.body.data.id}`);
    expect(session.body.data.config.protocol).toBe('socks4');
    await api('DELETE', `/sessions/${created.body.data.id}`);

    const options = (await api('GET', '/proxy/options')).body.data;
    expect(options.protocols.map((i: { value: string }) => i.value)).toEqual([
      'http',
      'socks5',
      'socks4',
    ]);
  });

  it('refuses a filter mode the client enum lost, naming the values left', async () => {
    const checked = await validate({ filter_mode: 'speed' });
    expect(checked.valid).toBe(false);
    expect(checked.issues).toEqual([
      {
        code: 'unsupported_filter_mode',
        field: 'filter_mode',
        message:
          'filter_mode "speed" is not supported; allowed values: quality, quality_speed, none',
        suggestion: 'Use one of: quality, quality_speed, none',
      },
    ]);
    const created = await create({ filter_mode: 'speed' });
    expect(created.status).toBe(400);
    expect(created.body.error).toBe(checked.issues[0].message);

    const options = (await api('GET', '/proxy/options')).body.data;
    expect(options.filter_modes.map((i: { value: string }) => i.value)).toEqual([
      'quality',
      'quality_speed',
      'none',
    ]);
  });

  it("words a number field's refusal from the client's new rule", async () => {
    const checked = await validate({ idle_timeout_minutes: 0 });
    expect(checked.issues).toEqual([
      expect.objectContaining({
        code: 'invalid_type',
        field: 'idle_timeout_minutes',
        message: 'idle_timeout_minutes must be an integer >= 1',
      }),
    ]);
    const created = await create({ max_duration_minutes: 0 });
    expect(created.status).toBe(400);
    expect(created.body.error).toBe('max_duration_minutes must be an integer >= 1');
  });
});
