import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import {
  defaultRegistry,
  LaunchRegistry,
  ownClient,
  registryOf,
} from '../../src/launch/launch-registry.js';
import { clearPreflightCache, preflight } from '../../src/launch/preflight.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';

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
