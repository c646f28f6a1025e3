import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import {
  defaultRegistry,
  LaunchRegistry,
  liveRegistries,
  ownClient,
  registryOf,
} from '../../src/launch/launch-registry.js';
import { clearPreflightCache, preflight } from '../../src/launch/preflight.js';
import { releaseAll, SessionLease } from '../../src/launch/session-lease.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { useFakeService } from './fake-service.js';

let server: TestServer;
const clients: BrowserApi[] = [];
const client = () => {
  const api = new BrowserApi({ baseUrl: server.origin, token: 't' });
  clients.push(api);
  return api;
};
const validations = () => server.requests.filter((r) => r.url.endsWith('/configurations/validate'));

beforeAll(async () => {
  server = await startTestServer();
  server.respond(json(200, { data: { valid: true, issues: null } }));
});
afterAll(async () => {
  await Promise.all(clients.map((api) => api.close()));
  clearPreflightCache();
  await server.close();
});

describe('the launch registry', () => {
  it("is the caller's client's own, and the default one for clients launch/ builds", () => {
    const mine = client();
    const other = client();
    expect(registryOf(mine)).toBeInstanceOf(LaunchRegistry);
    expect(registryOf(mine)).toBe(registryOf(mine));
    expect(registryOf(mine)).not.toBe(registryOf(other));
    expect(registryOf(mine)).not.toBe(defaultRegistry);
    expect(registryOf(ownClient(client()))).toBe(defaultRegistry);
  });

  it('caches preflight results per client, with nothing to clear between clients', async () => {
    const call = { timeout: 5000 };
    const first = client();
    await preflight(first, { country: 'us' }, true, 'launchRemote', call);
    await preflight(first, { country: 'us' }, true, 'launchRemote', call);
    expect(validations()).toHaveLength(1);
    // A fresh client starts with an empty cache: it asks the service itself.
    await preflight(client(), { country: 'us' }, true, 'launchRemote', call);
    expect(validations()).toHaveLength(2);
    // Clients launch/ builds itself share the default registry's cache.
    await preflight(ownClient(client()), { country: 'de' }, true, 'launchRemote', call);
    await preflight(ownClient(client()), { country: 'de' }, true, 'launchRemote', call);
    expect(validations()).toHaveLength(3);
  });
});

describe("a client's leases", () => {
  const service = useFakeService('rb-registry-');

  it('are kept by its own registry; the exit paths see every client that holds one', async () => {
    const mine = service.api();
    const other = service.api();
    const a = new SessionLease(mine, service.createSession('').id);
    const b = new SessionLease(other, service.createSession('').id);
    expect(registryOf(mine).leases()).toEqual([a]);
    expect(registryOf(other).leases()).toEqual([b]);
    expect(liveRegistries()).toEqual(expect.arrayContaining([registryOf(mine), registryOf(other)]));
    // Releasing one client's leases leaves the other's alone.
    await releaseAll([registryOf(mine)]);
    expect([a.active, b.active]).toEqual([false, true]);
    expect(liveRegistries()).not.toContain(registryOf(mine));
    await releaseAll();
    expect(b.active).toBe(false);
    expect(liveRegistries()).not.toContain(registryOf(other));
    expect(service.running()).toEqual([]);
  });
});
