/**
 * The launch registry's bookkeeping on its own (launch-registry.ts): creates and leases in and
 * out, what its observers and the process-wide ones hear (and hear once), when a registry
 * counts as live, the per-account slots, and `endOnce()`'s single shared DELETE. Leases and
 * creates are plain records here; the DELETEs go to a scripted service on a real loopback server.
 */
import { describe, expect, it } from 'vitest';
import type { SessionCreated } from '../../src/browser-api/index.js';
import { NotFoundError } from '../../src/http/errors.js';
import {
  type InFlightCreate,
  LaunchRegistry,
  type Lease,
  liveRegistries,
  observeRegistries,
  REMEMBERED_ENDS,
  type RegistryObserver,
} from '../../src/launch/launch-registry.js';
import { json } from '../helpers/http-server.js';
import { type FakeSession, heldUntil, startFakeService, useFakeService } from './fake-service.js';

const service = useFakeService('rb-registry-units-');
const ONE = /^\/sessions\/[^/]+$/;

const api = () => service.api();
const lease = (id: string): Lease => ({ id, api: api(), release: async () => {} });
const create = (intent: string): InFlightCreate => ({
  intent: { intent, origin: 'o', pid: 1, at: new Date().toISOString(), targeting: {} },
  api: api(),
  call: new Promise<SessionCreated>(() => {}),
  settle: () => {},
});

/** An observer that writes each event it hears as one line. */
function recorder(): { events: string[]; observer: RegistryObserver } {
  const events: string[] = [];
  return {
    events,
    observer: {
      lease: (l, event) => events.push(`lease ${l.id} ${event}`),
      create: (i, event, createdId) =>
        events.push(`create ${i.intent} ${event}${createdId ? ` ${createdId}` : ''}`),
      ended: (id) => events.push(`ended ${id}`),
    },
  };
}

describe('LaunchRegistry: creates and leases', () => {
  it('lists what is in, tells its observers each change once, and forgets what left', () => {
    const registry = new LaunchRegistry();
    const { events, observer } = recorder();
    registry.observe(observer);
    const a = create('i-a');
    const l = lease('s-1');
    registry.addCreate(a);
    registry.addLease(l);
    expect(registry.creates()).toEqual([a]);
    expect(registry.leases()).toEqual([l]);
    expect(registry.hasLease(l)).toBe(true);
    registry.removeCreate(a, 's-9');
    // A second removal (a create settled twice) is silent.
    registry.removeCreate(a, 's-9');
    expect(registry.removeLease(l)).toBe(true);
    expect(registry.removeLease(l)).toBe(false);
    expect(registry.hasLease(l)).toBe(false);
    expect(registry.creates()).toEqual([]);
    expect(registry.leases()).toEqual([]);
    expect(events).toEqual([
      'create i-a started',
      'lease s-1 opened',
      'create i-a settled s-9',
      'lease s-1 closed',
    ]);
  });

  it('a create settling without a session says so (no id)', () => {
    const registry = new LaunchRegistry();
    const { events, observer } = recorder();
    registry.observe(observer);
    const a = create('i-a');
    registry.addCreate(a);
    registry.removeCreate(a);
    expect(events).toEqual(['create i-a started', 'create i-a settled']);
  });

  it("observe() returns the unsubscribe; the process-wide observers hear every registry's events", () => {
    const one = new LaunchRegistry();
    const two = new LaunchRegistry();
    const own = recorder();
    const all = recorder();
    const unsubscribe = one.observe(own.observer);
    const unobserve = observeRegistries(all.observer);
    try {
      const a = lease('a');
      const b = lease('b');
      one.addLease(a);
      two.addLease(b);
      unsubscribe();
      one.removeLease(a);
      unobserve();
      two.removeLease(b);
    } finally {
      unobserve();
    }
    expect(own.events).toEqual(['lease a opened']);
    expect(all.events).toEqual(['lease a opened', 'lease b opened', 'lease a closed']);
  });

  it('an observer may hear only some events: one without a lease or create hook is skipped', () => {
    const registry = new LaunchRegistry();
    const ends: string[] = [];
    registry.observe({ ended: (id) => ends.push(id) });
    const unobserve = observeRegistries({ ended: (id) => ends.push(id) });
    try {
      const l = lease('s-1');
      const a = create('i-a');
      expect(() => {
        registry.addLease(l);
        registry.addCreate(a);
        registry.removeCreate(a);
        registry.removeLease(l);
      }).not.toThrow();
      expect(registry.leases()).toEqual([]);
      expect(ends).toEqual([]);
    } finally {
      unobserve();
    }
  });

  it('is live while it holds a lease or a create, and only then', () => {
    const registry = new LaunchRegistry();
    expect(liveRegistries()).not.toContain(registry);
    const a = create('i-a');
    const l = lease('s-1');
    registry.addCreate(a);
    expect(liveRegistries()).toContain(registry);
    registry.addLease(l);
    registry.removeCreate(a);
    // Still a lease: still live.
    expect(liveRegistries()).toContain(registry);
    registry.addCreate(a);
    registry.removeLease(l);
    expect(liveRegistries()).toContain(registry);
    registry.removeCreate(a);
    expect(liveRegistries()).not.toContain(registry);
    registry.addLease(l);
    expect(liveRegistries()).toContain(registry);
    registry.removeLease(l);
    expect(liveRegistries()).not.toContain(registry);
  });
});

describe('LaunchRegistry.endOnce', () => {
  it('sends one DELETE however many ask, with the timeout given; observers hear the end once', async () => {
    const registry = new LaunchRegistry();
    const { events, observer } = recorder();
    registry.observe(observer);
    const client = api();
    const { id } = service.createSession('');
    const answers = await Promise.all([
      registry.endOnce(client, id, 15_000),
      registry.endOnce(client, id, 15_000),
    ]);
    expect(await registry.endOnce(client, id, 15_000)).toBe('deleted');
    expect(answers).toEqual(['deleted', 'deleted']);
    expect(service.calls('DELETE', ONE)).toHaveLength(1);
    expect(events).toEqual([`ended ${id}`]);
  });

  it("a session the service no longer has is 'gone', also heard as ended", async () => {
    const registry = new LaunchRegistry();
    const { events, observer } = recorder();
    registry.observe(observer);
    expect(await registry.endOnce(api(), 'no-such', 15_000)).toBe('gone');
    expect(events).toEqual(['ended no-such']);
  });

  it('a failed DELETE is forgotten (the next call tries again) and is not an end', async () => {
    const registry = new LaunchRegistry();
    const { events, observer } = recorder();
    registry.observe(observer);
    const client = api();
    const { id } = service.createSession('');
    service.on('DELETE', ONE, json(500, { error: { code: 'internal', message: 'down' } }));
    const err = await registry.endOnce(client, id, 15_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(NotFoundError);
    expect(events).toEqual([]);
    service.off('DELETE');
    expect(await registry.endOnce(client, id, 15_000)).toBe('deleted');
    expect(service.calls('DELETE', ONE)).toHaveLength(2);
    expect(events).toEqual([`ended ${id}`]);
  });

  it(`remembers the last ${REMEMBERED_ENDS} ends, and the created ids with them; older ones are let go`, async () => {
    const registry = new LaunchRegistry();
    const client = api();
    const ids = Array.from({ length: REMEMBERED_ENDS + 1 }, () => service.createSession('').id);
    for (const id of ids) registry.created.add(id);
    // One after another, so they settle in this order.
    for (const id of ids) expect(await registry.endOnce(client, id, 15_000)).toBe('deleted');
    expect(service.calls('DELETE', ONE)).toHaveLength(ids.length);
    const [oldest, second] = ids as [string, string];
    const newest = ids.at(-1) as string;
    // The newest end is still answered from memory, and its id still counts as created here.
    expect(await registry.endOnce(client, newest, 15_000)).toBe('deleted');
    expect(service.calls('DELETE', ONE)).toHaveLength(ids.length);
    expect(registry.created.has(newest)).toBe(true);
    expect(registry.created.size).toBe(REMEMBERED_ENDS);
    // The oldest fell out of both: asked again, it is sent again (and ends nothing new).
    expect(registry.created.has(oldest)).toBe(false);
    expect(await registry.endOnce(client, oldest, 15_000)).toBe('deleted');
    expect(service.calls('DELETE', ONE)).toHaveLength(ids.length + 1);
    // Remembering it again let the next oldest go.
    expect(registry.created.has(second)).toBe(false);
    expect(await registry.endOnce(client, newest, 15_000)).toBe('deleted');
    expect(service.calls('DELETE', ONE)).toHaveLength(ids.length + 1);
  });

  it('the same id on another origin is another session', async () => {
    const registry = new LaunchRegistry();
    const other = await startFakeService();
    try {
      const { id } = service.createSession('');
      other.sessions.set(id, { ...(service.sessions.get(id) as FakeSession) });
      await registry.endOnce(api(), id, 15_000);
      await registry.endOnce(other.api(), id, 15_000);
      expect(service.calls('DELETE', ONE)).toHaveLength(1);
      expect(other.calls('DELETE', ONE)).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it("uses the timeout it is given, not the client's", async () => {
    const registry = new LaunchRegistry();
    const { id } = service.createSession('');
    service.on('DELETE', ONE, heldUntil(new Promise(() => {}), json(200, {})));
    const err = await registry.endOnce(api(), id, 50).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/timed out after 50 ms/);
  });
});
