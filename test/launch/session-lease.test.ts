import { describe, expect, it } from 'vitest';
import { installExitHooks } from '../../src/launch/exit-hooks.js';
import { openEntries } from '../../src/launch/ledger.js';
import { releaseAll, SessionLease } from '../../src/launch/session-lease.js';
import { tracker } from '../../src/launch/tracker.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { gate, heldUntil, useFakeService } from './fake-service.js';

const service = useFakeService('rb-lease-');
const DELETES = /^\/sessions\/[^/]+$/;

describe('SessionLease', () => {
  it('deletes once however often release() is called, at once or later', async () => {
    const api = service.api();
    const { id } = service.createSession('');
    const lease = new SessionLease(api, id);
    await Promise.all([lease.release(), lease.release()]);
    await lease.release();
    expect(service.calls('DELETE', DELETES)).toHaveLength(1);
    expect(lease.active).toBe(false);
    expect(openEntries().map((e) => e.id)).not.toContain(id);
  });

  it('releaseAll() during a release in flight (an exit hook firing mid-close) deletes once', async () => {
    const api = service.api();
    const { id } = service.createSession('');
    const hold = gate();
    service.on(
      'DELETE',
      DELETES,
      heldUntil(hold.opened, json(200, { data: { status: 'success' } })),
    );
    const lease = new SessionLease(api, id);
    const closing = lease.release();
    await eventually(() => service.calls('DELETE', DELETES).length === 1, 5000, 'the DELETE');
    // Two signals' hooks and a beforeExit, while the first DELETE is still on the wire.
    const hooks = [releaseAll(), releaseAll(), releaseAll()];
    hold.open();
    await Promise.all([closing, ...hooks]);
    expect(service.calls('DELETE', DELETES)).toHaveLength(1);
  });

  it("the exit hooks' beforeExit and close() together delete once; the watchdog hears one open and one close", async () => {
    const api = service.api();
    const { id } = service.createSession('');
    const events: string[] = [];
    const unsubscribe = tracker.observe({
      lease: (lease, event) => events.push(`${lease.id} ${event}`),
    });
    const uninstall = installExitHooks({ signals: [] });
    try {
      const lease = new SessionLease(api, id);
      const closing = lease.release();
      process.emit('beforeExit', 0);
      await closing;
      await releaseAll();
      await lease.release();
      expect(service.calls('DELETE', DELETES)).toHaveLength(1);
      expect(events).toEqual([`${id} opened`, `${id} closed`]);
    } finally {
      uninstall();
      unsubscribe();
    }
  });

  it('a kept session is never deleted, by release() or by the exit paths, and leaves the ledger', async () => {
    const api = service.api();
    const { id } = service.createSession('');
    const lease = new SessionLease(api, id);
    lease.keep();
    await lease.release();
    await releaseAll();
    expect(service.calls('DELETE', DELETES)).toHaveLength(0);
    expect(lease.active).toBe(false);
    expect(openEntries().map((e) => e.id)).not.toContain(id);
  });

  it('a session that is already gone (404) counts as deleted', async () => {
    const api = service.api();
    const lease = new SessionLease(api, 'gone-1');
    await expect(lease.release()).resolves.toBeUndefined();
    expect(lease.active).toBe(false);
    expect(openEntries().map((e) => e.id)).not.toContain('gone-1');
  });

  it('releaseAll() deletes every lease still open and none that was kept', async () => {
    const api = service.api();
    const a = new SessionLease(api, service.createSession('').id);
    const b = new SessionLease(api, service.createSession('').id);
    const kept = new SessionLease(api, service.createSession('').id);
    kept.keep();
    await releaseAll();
    const deleted = service.calls('DELETE', DELETES).map((r) => r.url.split('/').pop());
    expect(deleted.sort()).toEqual([a.id, b.id].sort());
    expect([a, b, kept].filter((lease) => lease.active)).toEqual([]);
  });

  it('keep() during a release in flight does not drop the lease before its DELETE is done', async () => {
    const api = service.api();
    const hold = gate();
    service.on(
      'DELETE',
      DELETES,
      heldUntil(hold.opened, json(200, { data: { status: 'success' } })),
    );
    const lease = new SessionLease(api, service.createSession('').id);
    const events: string[] = [];
    const unsubscribe = tracker.observe({
      lease: (l, event) => {
        if (l === lease) events.push(event);
      },
    });
    try {
      const closing = lease.release();
      await eventually(() => service.calls('DELETE', DELETES).length === 1, 5000, 'the DELETE');
      lease.keep();
      // Still this process's job until the DELETE answers: exit hooks must still see it.
      expect(lease.active).toBe(true);
      hold.open();
      await closing;
      expect(lease.active).toBe(false);
      // Observers hear it close once (not once per release(), keep() and forget).
      await lease.release();
      expect(events).toEqual(['closed']);
    } finally {
      unsubscribe();
    }
  });

  it('a failed DELETE names the session, the retry and the reap command, and keeps it active', async () => {
    const api = service.api();
    service.on('DELETE', DELETES, json(400, { error: 'refused' }));
    const lease = new SessionLease(api, service.createSession('').id);
    const error = (await lease.release().catch((e: unknown) => e)) as Error & {
      sessionId?: string;
      cause?: unknown;
    };
    expect(error.message).toContain(`session ${lease.id} is still running`);
    expect(error.message).toContain(`remote-browser sessions end ${lease.id}`);
    expect(error.message).toContain(
      '(`remote-browser sessions reap` ends every session whose delete failed)',
    );
    expect(error.sessionId).toBe(lease.id);
    expect(error.cause).toBeInstanceOf(Error);
    expect(lease.active).toBe(true);
    expect(openEntries().find((e) => e.id === lease.id)?.state).toBe('delete-failed');
    // The service recovers: the next release() sends a DELETE again.
    service.off('DELETE');
    await lease.release();
    expect(service.calls('DELETE', DELETES)).toHaveLength(2);
    expect(lease.active).toBe(false);
  });
});
