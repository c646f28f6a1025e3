import { Console } from 'node:console';
import { PassThrough } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AsyncSessionError, BrowserApi } from '../../src/browser-api/index.js';
import {
  isRequestValidationError,
  type RequestValidationError,
  ResponseValidationError,
  ServiceUnavailableError,
} from '../../src/http/errors.js';
import { json } from '../helpers/http-server.js';
import {
  type ApiFixture,
  CDP_URL,
  CONFIG,
  ok,
  PROXY_PASSWORD,
  startApi,
  wireBody,
  wirePath,
} from './api-server.js';

let f: ApiFixture;
beforeAll(async () => {
  f = await startApi();
});
afterAll(() => f.close());
afterEach(() => {
  f.server.requests.length = 0;
  f.server.respond(ok({}));
  vi.unstubAllEnvs();
});

const created = { id: 's-1', cdp_url: CDP_URL, status: 'running' };

async function rejection(promise: Promise<unknown>): Promise<RequestValidationError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(isRequestValidationError(error)).toBe(true);
  return error as RequestValidationError;
}

describe('sessions.create', () => {
  it('posts the wire fields to /sessions and returns { id, cdp_url, status }', async () => {
    f.server.respond(ok(created));
    const session = await f.api.sessions.create({
      country: 'us',
      filter_mode: 'quality_speed',
      max_duration_minutes: 5,
    });
    expect(session).toMatchObject(created);
    const [req] = f.server.requests;
    expect(req?.method).toBe('POST');
    expect(wirePath(req)).toBe('/sessions');
    expect(wireBody(req)).toEqual({
      country: 'us',
      filter_mode: 'quality_speed',
      max_duration_minutes: 5,
      proxy_password: PROXY_PASSWORD,
    });
  });

  it('prefers the proxy_password of the body over the client option', async () => {
    f.server.respond(ok(created));
    await f.api.sessions.create({ proxy_password: 'body-proxy-password-1' });
    expect(wireBody(f.server.requests[0])).toEqual({ proxy_password: 'body-proxy-password-1' });
  });

  it('falls back to REMOTE_BROWSER_PROXY_PASSWORD when no proxy password is passed in code', async () => {
    vi.stubEnv('REMOTE_BROWSER_PROXY_PASSWORD', 'env-proxy-password-2');
    const api = f.client({ proxyPassword: undefined });
    f.server.respond(ok(created));
    await api.sessions.create({});
    expect(wireBody(f.server.requests[0])).toEqual({ proxy_password: 'env-proxy-password-2' });
  });

  it('rejects a create without any proxy password before sending anything', async () => {
    vi.stubEnv('REMOTE_BROWSER_PROXY_PASSWORD', '');
    const api = f.client({ proxyPassword: undefined });
    const error = await rejection(api.sessions.create({}));
    expect(error.field).toBe('proxy_password');
    expect(error.message).toMatch(/proxy_password: is required.*REMOTE_BROWSER_PROXY_PASSWORD/);
    expect(f.server.requests).toHaveLength(0);
  });

  it('names the field and the allowed values of a wrong enum, before sending anything', async () => {
    const error = await rejection(f.api.sessions.create({ filter_mode: 'fast' as never }));
    expect(error.message).toBe(
      'sessions.create: invalid request: filter_mode: must be one of quality, quality_speed, speed, none (got "fast")',
    );
    for (const [field, value, allowed] of [
      ['protocol', 'https', 'http, socks5'],
      ['connection_type', 'isp', 'residential, mobile'],
      ['session_type', 'sticky-ish', 'sticky, rotating, no_rotating'],
    ] as const) {
      const e = await rejection(f.api.sessions.create({ [field]: value }));
      expect(e.message).toContain(`${field}: must be one of ${allowed} (got "${value}")`);
    }
    expect(f.server.requests).toHaveLength(0);
  });

  it('rejects bad types and non-integer or negative minutes before sending anything', async () => {
    const e1 = await rejection(f.api.sessions.create({ max_duration_minutes: 1.5 }));
    expect(e1.message).toContain('max_duration_minutes: must be an integer (got 1.5)');
    const e2 = await rejection(f.api.sessions.create({ idle_timeout_minutes: -1 }));
    expect(e2.message).toContain('idle_timeout_minutes: must be >= 0 (got -1)');
    const e3 = await rejection(f.api.sessions.create({ ipv4_only: 'yes' as never }));
    expect(e3.message).toContain('ipv4_only: must be a boolean (got "yes")');
    const e4 = await rejection(f.api.sessions.create({ proxy_password: '' }));
    expect(e4.message).toContain('proxy_password: must not be empty');
    expect(f.server.requests).toHaveLength(0);
  });

  it('never quotes back a proxy_password that is not a string, only its type', async () => {
    for (const [value, type] of [
      [918273, 'a number'],
      [true, 'a boolean'],
      [{ pw: 'inner-secret' }, 'an object'],
    ] as const) {
      const error = await rejection(f.api.sessions.create({ proxy_password: value as never }));
      expect(error.field).toBe('proxy_password');
      expect(error.message).toBe(
        `sessions.create: invalid request: proxy_password: must be a string (got ${type})`,
      );
      expect(inspect(error)).not.toContain('918273');
    }
    expect(f.server.requests).toHaveLength(0);
  });

  it('passes unknown request keys through to the service', async () => {
    f.server.respond(ok(created));
    await f.api.sessions.create({ future_flag: 1 } as never);
    expect(wireBody(f.server.requests[0])).toMatchObject({ future_flag: 1 });
  });

  it('rejects quality_filter_enabled that conflicts with filter_mode', async () => {
    for (const [flag, mode] of [
      [true, 'none'],
      [true, 'speed'],
      [false, 'quality'],
      [false, 'quality_speed'],
    ] as const) {
      const e = await rejection(
        f.api.sessions.create({ filter_mode: mode, quality_filter_enabled: flag }),
      );
      expect(e.field).toBe('quality_filter_enabled');
      expect(e.message).toContain(`${flag} conflicts with filter_mode "${mode}"`);
    }
    expect(f.server.requests).toHaveLength(0);
  });

  it('sends the deprecated quality_filter_enabled alone, or with a filter_mode that agrees', async () => {
    f.server.respond(ok(created));
    await f.api.sessions.create({ quality_filter_enabled: false });
    await f.api.sessions.create({ quality_filter_enabled: true, filter_mode: 'quality_speed' });
    await f.api.sessions.create({ quality_filter_enabled: false, filter_mode: 'none' });
    expect(f.server.requests.map(wireBody)).toMatchObject([
      { quality_filter_enabled: false },
      { quality_filter_enabled: true, filter_mode: 'quality_speed' },
      { quality_filter_enabled: false, filter_mode: 'none' },
    ]);
  });

  it('does not retry a create after a 503', async () => {
    f.server.respond(json(503, { error: 'busy', reason: 'maintenance', retry_after: 0 }));
    await expect(f.api.sessions.create({})).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(f.server.requests).toHaveLength(1);
  });

  it('fails with ResponseValidationError naming a broken cdp_url', async () => {
    f.server.respond(ok({ id: 's-1', cdp_url: 'http://not-a-websocket', status: 'running' }));
    const error = await f.api.sessions.create({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).field).toBe('cdp_url');
  });

  it('never prints the proxy password of a failed create', async () => {
    f.server.respond(json(400, { error: `bad proxy_password ${PROXY_PASSWORD}` }));
    const error = await f.api.sessions.create({}).catch((e: unknown) => e);
    expect(inspect(error)).not.toContain(PROXY_PASSWORD);
    expect(JSON.stringify(error)).not.toContain(PROXY_PASSWORD);
  });
});

describe('cdp_url on returned objects', () => {
  it('is usable by code and survives spreading', async () => {
    f.server.respond(ok(created));
    const session = await f.api.sessions.create({});
    expect(session.cdp_url).toBe(CDP_URL);
    expect({ ...session }.cdp_url).toBe(CDP_URL);
    expect(Object.keys(session).sort()).toEqual(['cdp_url', 'id', 'status']);
  });

  it('is redacted by util.inspect, console.log and JSON.stringify', async () => {
    f.server.respond(ok(created));
    const session = await f.api.sessions.create({});
    const out = new PassThrough();
    let printed = '';
    out.on('data', (chunk) => {
      printed += chunk;
    });
    new Console(out).log(session);
    for (const text of [
      inspect(session),
      printed,
      JSON.stringify(session),
      JSON.stringify({ nested: [session] }),
    ]) {
      expect(text).not.toContain('cdp-access-token-secret-42');
      expect(text).toContain('wss://cdp.example.test/[REDACTED]');
      expect(text).toContain('s-1');
    }
  });

  it('is redacted on retrieve and connection too', async () => {
    f.server.respond(
      ok({
        id: 's-1',
        status: 'running',
        created_at: '2025-01-01T00:00:00Z',
        ended_at: null,
        config: CONFIG,
        cdp_url: CDP_URL,
      }),
      ok({
        id: 's-1',
        status: 'running',
        cdp_url: CDP_URL,
        debugger_address: '127.0.0.1:9222',
        live_view_url: 'https://live.example/s-1',
        config: CONFIG,
      }),
    );
    const session = await f.api.sessions.retrieve('s-1');
    const connection = await f.api.sessions.connection('s-1');
    for (const value of [session, connection]) {
      expect(value.cdp_url).toBe(CDP_URL);
      expect(inspect(value)).not.toContain('cdp-access-token-secret-42');
      expect(JSON.stringify(value)).not.toContain('cdp-access-token-secret-42');
    }
  });
});

describe('sessions reads and end', () => {
  it('lists with status and limit in the query', async () => {
    const summary = {
      id: 's-1',
      status: 'running',
      created_at: '2025-01-01T00:00:00Z',
      config: CONFIG,
    };
    f.server.respond(ok([summary]));
    expect(await f.api.sessions.list({ status: 'running', limit: 5 })).toEqual([summary]);
    expect(await f.api.sessions.list()).toEqual([summary]);
    expect(f.server.requests.map(wirePath)).toEqual([
      '/sessions?status=running&limit=5',
      '/sessions',
    ]);
    expect(f.server.requests[0]?.method).toBe('GET');
  });

  it('rejects an unknown status filter and a zero limit before sending anything', async () => {
    const e1 = await rejection(f.api.sessions.list({ status: 'active' as never }));
    expect(e1.message).toContain('status: must be one of running, ended, all (got "active")');
    await rejection(f.api.sessions.list({ limit: 0 }));
    expect(f.server.requests).toHaveLength(0);
  });

  it('gets a session, its connection and its pages by id, encoding the id', async () => {
    const id = 'a?b#c d';
    f.server.respond(
      ok({
        id,
        status: 'ended',
        created_at: '2025-01-01T00:00:00Z',
        ended_at: '2025-01-01T00:05:00Z',
        config: {},
      }),
      ok({
        id,
        status: 'running',
        cdp_url: CDP_URL,
        debugger_address: '127.0.0.1:1',
        live_view_url: 'http://live',
        config: {},
      }),
      ok([{ id: 'p1', title: 'T', type: 'page', url: 'about:blank' }]),
    );
    const session = await f.api.sessions.retrieve(id);
    expect(session.ended_at).toBe('2025-01-01T00:05:00Z');
    expect(session.cdp_url).toBeUndefined();
    await f.api.sessions.connection(id);
    expect(await f.api.sessions.pages(id)).toEqual([
      { id: 'p1', title: 'T', type: 'page', url: 'about:blank' },
    ]);
    expect(f.server.requests.map((r) => `${r.method} ${wirePath(r)}`)).toEqual([
      'GET /sessions/a%3Fb%23c%20d',
      'GET /sessions/a%3Fb%23c%20d/connection',
      'GET /sessions/a%3Fb%23c%20d/pages',
    ]);
  });

  it('ends a session with DELETE and retries it after a 503', async () => {
    f.server.respond(json(503, { error: 'busy' }), ok({ status: 'success' }));
    expect(await f.api.sessions.end('s-1')).toEqual({ status: 'success' });
    expect(f.server.requests.map((r) => `${r.method} ${wirePath(r)}`)).toEqual([
      'DELETE /sessions/s-1',
      'DELETE /sessions/s-1',
    ]);
  });

  it('accepts null connection fields for an ended session but requires them while running', async () => {
    const ended = {
      id: 's-1',
      status: 'ended',
      cdp_url: null,
      debugger_address: null,
      live_view_url: null,
      config: {},
    };
    f.server.respond(ok(ended), ok({ ...ended, status: 'running' }));
    const connection = await f.api.sessions.connection('s-1');
    expect(connection.cdp_url).toBeUndefined();
    const error = (await f.api.sessions
      .connection('s-1')
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.field).toBe('cdp_url');
  });

  it('rejects an empty id before sending anything', async () => {
    for (const call of [
      () => f.api.sessions.retrieve(''),
      () => f.api.sessions.connection('  '),
      () => f.api.sessions.pages(''),
      () => f.api.sessions.end(undefined as never),
      () => f.api.sessions.retrieveAsync(''),
    ]) {
      await rejection(call());
    }
    expect(f.server.requests).toHaveLength(0);
  });

  it.each(['..', '.', 'a/b', '../../profiles', 'a\\b'])(
    'refuses the id %j, which would change the route, before sending anything',
    async (id) => {
      for (const call of [
        () => f.api.sessions.end(id),
        () => f.api.sessions.retrieve(id),
        () => f.api.sessions.pages(id),
      ]) {
        const error = await rejection(call());
        expect(error.field).toBe('id');
        expect(error.message).toMatch(/id: must not be|id: must be a single path segment/);
      }
      expect(f.server.requests).toHaveLength(0);
    },
  );

  it('names a broken documented field of a session summary', async () => {
    f.server.respond(ok([{ id: 's-1', status: 'gone', created_at: 'x', config: {} }]));
    const error = (await f.api.sessions.list().catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.field).toBe('0.status');
  });
});

describe('asynchronous create', () => {
  it('posts to /sessions-async with the proxy password and returns request_id', async () => {
    f.server.respond(ok({ request_id: 'r-1' }));
    expect(await f.api.sessions.createAsync({ country: 'de' })).toEqual({ request_id: 'r-1' });
    expect(wirePath(f.server.requests[0])).toBe('/sessions-async');
    expect(wireBody(f.server.requests[0])).toEqual({
      country: 'de',
      proxy_password: PROXY_PASSWORD,
    });
  });

  it('waits until the poll shows a session, reading it at the top level or nested', async () => {
    f.server.respond(
      ok({ request_id: 'r-1', status: 'pending' }),
      ok({ request_id: 'r-1', status: 'completed', session: created }),
    );
    const session = await f.api.sessions.waitForAsync('r-1', { intervalMs: 5 });
    expect(session).toMatchObject(created);
    expect(inspect(session)).not.toContain('cdp-access-token-secret-42');
    expect(f.server.requests.map(wirePath)).toEqual(['/sessions-async/r-1', '/sessions-async/r-1']);

    f.server.respond(ok({ ...created, request_id: 'r-2' }));
    expect((await f.api.sessions.waitForAsync('r-2', { intervalMs: 5 })).id).toBe('s-1');
  });

  it('fails the wait when the poll reports a failed creation', async () => {
    f.server.respond(
      ok({ request_id: 'r-1', status: 'failed', error: 'concurrency limit', error_status: 429 }),
    );
    const error = await f.api.sessions
      .waitForAsync('r-1', { intervalMs: 5 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AsyncSessionError);
    expect((error as AsyncSessionError).message).toMatch(/creation failed: concurrency limit/);
    expect((error as AsyncSessionError).status).toBe(429);
  });

  it('redacts cdp_url inside a raw poll result', async () => {
    f.server.respond(ok({ request_id: 'r-1', status: 'completed', result: created }));
    const poll = await f.api.sessions.retrieveAsync('r-1');
    expect(JSON.stringify(poll)).not.toContain('cdp-access-token-secret-42');
    expect(inspect(poll, { depth: 5 })).not.toContain('cdp-access-token-secret-42');
    expect((poll.result as { cdp_url: string }).cdp_url).toBe(CDP_URL);
  });
});

describe('BrowserApi', () => {
  it('sends the Bearer token to /api/v2/browser and exposes its origin', async () => {
    f.server.respond(ok([]));
    await f.api.profiles.list();
    expect(f.server.requests[0]?.url).toBe('/api/v2/browser/profiles');
    expect(f.server.requests[0]?.headers.authorization).toBe('Bearer unit-browser-token-abc123');
    expect(f.api.origin).toBe(f.server.origin);
  });

  it('accepts a base URL that already ends in the API path', async () => {
    const api = f.client({ baseUrl: `${f.server.origin}/api/v2/browser/` });
    f.server.respond(ok([]));
    await api.profiles.list();
    expect(f.server.requests[0]?.url).toBe('/api/v2/browser/profiles');
  });

  it('names the env var of a missing token', () => {
    vi.stubEnv('REMOTE_BROWSER_TOKEN', '');
    expect(() => new BrowserApi({ baseUrl: f.server.origin })).toThrow(/REMOTE_BROWSER_TOKEN/);
  });
});
