/**
 * What the rest of the process learns from leases and creates: the open/close and
 * started/settled events the out-of-process guard mirrors, a slot handed back when its lease
 * ends, and the ledger's and debug channel's record of how a session ended.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { setDebugSink } from '../../src/http/debug.js';
import { beginCreate } from '../../src/launch/creates-in-flight.js';
import { observeRegistries, registryOf } from '../../src/launch/launch-registry.js';
import { ledgerPath } from '../../src/launch/ledger.js';
import { SessionLease } from '../../src/launch/session-lease.js';
import { json } from '../helpers/http-server.js';
import { useFakeService } from './fake-service.js';

const service = useFakeService('rb-observers-');

function endedLines(id: string): { by?: string }[] {
  return readFileSync(ledgerPath(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { op: string; id?: string; by?: string })
    .filter((l) => l.op === 'ended' && l.id === id);
}

describe('observeRegistries({ lease })', () => {
  it('reports each lease opening and closing once, and nothing after unsubscribing', async () => {
    const api = service.api();
    const events: string[] = [];
    const unsubscribe = observeRegistries({
      lease: (lease, event) => events.push(`${lease.id} ${event}`),
    });
    const first = new SessionLease(api, service.createSession('').id);
    await Promise.all([first.release(), first.release()]);
    unsubscribe();
    const second = new SessionLease(api, service.createSession('').id);
    await second.release();
    expect(events).toEqual([`${first.id} opened`, `${first.id} closed`]);
  });
});

describe('observeRegistries({ create })', () => {
  it("reports a create's start and its settling once, however often it is settled, and nothing after unsubscribing", async () => {
    const api = service.api();
    const events: string[] = [];
    const unsubscribe = observeRegistries({
      create: (intent, event, createdId) =>
        events.push(`${intent.intent} ${event}${createdId ? ` ${createdId}` : ''}`),
    });
    const body = { country: 'us' };
    const create = beginCreate(api, body, () => api.sessions.create(body));
    const created = await create.call;
    // A successful create settles itself; the exit paths may settle it again.
    create.settle();
    create.settle();
    unsubscribe();
    const later = beginCreate(api, body, () => api.sessions.create(body));
    await later.call;
    const id = create.intent.intent;
    // The session comes with the settling, in the same event: the watchdog never knows neither.
    expect(events).toEqual([`${id} started`, `${id} settled ${created.id}`]);
  });

  it('reports no session with the settling of a create that returned none', async () => {
    const api = service.api();
    const events: string[] = [];
    const unsubscribe = observeRegistries({
      create: (_intent, event, createdId) => events.push(`${event} ${createdId}`),
    });
    service.on('POST', /^\/sessions$/, (_req, res) => {
      res.socket?.destroy();
    });
    const body = { country: 'us' };
    const create = beginCreate(api, body, () => api.sessions.create(body));
    await create.call.catch(() => {});
    create.settle();
    unsubscribe();
    expect(events).toEqual(['started undefined', 'settled undefined']);
  });
});

describe('observeRegistries({ ended })', () => {
  it('reports a session once when its DELETE succeeds or finds it gone, and not when it fails', async () => {
    const api = service.api();
    const ended: string[] = [];
    const unsubscribe = observeRegistries({ ended: (id) => ended.push(id) });
    const registry = registryOf(api);
    const deleted = service.createSession('').id;
    await Promise.all([registry.endOnce(api, deleted, 5000), registry.endOnce(api, deleted, 5000)]);
    await expect(registry.endOnce(api, 'never-existed', 5000)).resolves.toBe('gone');
    service.on('DELETE', /^\/sessions\/[^/]+$/, (_req, res) => {
      res.socket?.destroy();
    });
    const failing = service.createSession('').id;
    await expect(registry.endOnce(api, failing, 5000)).rejects.toThrow();
    unsubscribe();
    expect(ended).toEqual([deleted, 'never-existed']);
  });
});

describe('the slot a lease holds', () => {
  const slot = () => {
    const held = { released: 0 };
    return { held, slot: { release: () => void held.released++ } };
  };

  it('is handed back once, when its own lease is released, not when another opens or closes', async () => {
    const api = service.api();
    const { held, slot: mine } = slot();
    const lease = new SessionLease(api, service.createSession('').id, mine);
    const other = new SessionLease(api, service.createSession('').id, slot().slot);
    await other.release();
    expect(held.released).toBe(0);
    await Promise.all([lease.release(), lease.release()]);
    await lease.release();
    expect(held.released).toBe(1);
  });

  it('is handed back when the lease is kept (the session is no longer this process’s)', () => {
    const api = service.api();
    const { held, slot: mine } = slot();
    const lease = new SessionLease(api, service.createSession('').id, mine);
    lease.keep();
    expect(held.released).toBe(1);
  });

  it('is kept while a failed DELETE leaves the session ours', async () => {
    const api = service.api();
    service.on(
      'DELETE',
      /^\/sessions\/[^/]+$/,
      json(500, { error: { code: 'internal', message: 'down' } }),
    );
    const { held, slot: mine } = slot();
    const lease = new SessionLease(api, service.createSession('').id, mine);
    await expect(lease.release()).rejects.toThrow(/still running/);
    expect(held.released).toBe(0);
    service.off('DELETE');
    await lease.release();
    expect(held.released).toBe(1);
  });
});

describe('how a lease records its end', () => {
  it("a kept session's ledger line says 'kept' (reap must not end it); a released one's says 'close'", async () => {
    const api = service.api();
    const kept = new SessionLease(api, service.createSession('').id);
    const closed = new SessionLease(api, service.createSession('').id);
    kept.keep();
    await closed.release();
    expect(endedLines(kept.id)).toEqual([expect.objectContaining({ by: 'kept' })]);
    expect(endedLines(closed.id)).toEqual([expect.objectContaining({ by: 'close' })]);
  });

  it('says on the launch debug channel which session was deleted', async () => {
    const api = service.api();
    const lines: string[] = [];
    const previousDebug = process.env.DEBUG;
    const restore = setDebugSink((line) => lines.push(line));
    process.env.DEBUG = 'remote-browser:launch';
    try {
      const lease = new SessionLease(api, service.createSession('').id);
      await lease.release();
      expect(lines).toContain(`remote-browser:launch session ${lease.id} deleted`);
    } finally {
      setDebugSink(restore);
      if (previousDebug === undefined) delete process.env.DEBUG;
      else process.env.DEBUG = previousDebug;
    }
  });
});
