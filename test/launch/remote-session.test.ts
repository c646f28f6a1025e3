import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { installExitHooks } from '../../src/launch/exit-hooks.js';
import { ledgerPath, openEntries } from '../../src/launch/ledger.js';
import {
  type EndEvent,
  RemoteSession,
  releaseAll,
  SESSION_EVENTS,
  SESSION_STATES,
  type SessionEvent,
  RemoteSession as SessionLease,
  type SessionState,
  type SessionTransition,
  TRANSITIONS,
} from '../../src/launch/remote-session.js';
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

/** The ledger lines of session `id`, in order (`op`, or `op by`). */
function ledgerOf(id: string): string[] {
  let text = '';
  try {
    text = readFileSync(ledgerPath(), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { op: string; id?: string; by?: string })
    .filter((l) => l.id === id)
    .map((l) => (l.by ? `${l.op} ${l.by}` : l.op));
}

/** A session of the fake service brought to `state` through the public methods only. */
async function sessionIn(state: SessionState): Promise<RemoteSession> {
  const session = new RemoteSession(service.api(), service.createSession('').id);
  if (state === 'dropped' || state === 'kept' || state === 'reattached') session.drop();
  if (state === 'kept' || state === 'reattached') session.keepFor(60_000);
  if (state === 'reattached') session.handOff();
  if (state === 'handed-over') session.keep();
  if (state === 'ended') await session.release();
  if (state === 'ending') {
    const hold = gate();
    service.on(
      'DELETE',
      DELETES,
      heldUntil(hold.opened, json(200, { data: { status: 'success' } })),
    );
    void session.release();
    await eventually(() => service.calls('DELETE', DELETES).length === 1, 5000, 'the DELETE');
    service.off('DELETE');
    (session as unknown as { hold: () => void }).hold = hold.open;
  }
  expect(session.state).toBe(state);
  return session;
}

const END_EVENTS = new Set<SessionEvent>([
  'close',
  'abandon',
  'exit',
  'service-ended',
  'window-passed',
]);

/** Fires `event` through the public method that makes it. */
function fire(session: RemoteSession, event: SessionEvent): Promise<unknown> {
  if (END_EVENTS.has(event)) return session.release(event as EndEvent).catch(() => undefined);
  if (event === 'drop') session.drop();
  else if (event === 'running') session.keepFor(60_000);
  else if (event === 'reattach') session.handOff();
  else if (event === 'keep') session.keep();
  return Promise.resolve();
}

describe('the transition table: every state × every event, on a real session', () => {
  // 'deleted' and 'delete-failed' are the DELETE's answers: tested from `ending` below.
  const caller = SESSION_EVENTS.filter((e) => e !== 'deleted' && e !== 'delete-failed');
  for (const state of SESSION_STATES.filter((s) => s !== 'ending')) {
    for (const event of caller) {
      const transition = TRANSITIONS[state][event];
      it(`${state} --${event}--> ${transition?.next ?? `${state} (ignored)`}`, async () => {
        const session = await sessionIn(state);
        const heard: SessionTransition[] = [];
        session.observe((t) => heard.push(t));
        const deletesBefore = service.calls('DELETE', DELETES).length;
        const linesBefore = ledgerOf(session.id).length;
        const done = fire(session, event);
        // The state changes at once, before any request answers.
        expect(session.state).toBe(transition?.next ?? state);
        await done;
        const sent = service.calls('DELETE', DELETES).length - deletesBefore;
        const lines = ledgerOf(session.id).slice(linesBefore);
        expect(sent).toBe(transition?.sends ? 1 : 0);
        if (!transition) {
          expect(heard).toEqual([]);
          expect(lines).toEqual([]);
        } else if (transition.next === 'ending') {
          // The DELETE answered: ending --deleted--> ended, with its ledger line.
          expect(heard.map((t) => `${t.from} ${t.event} ${t.to}`)).toEqual([
            `${state} ${event} ending`,
            'ending deleted ended',
          ]);
          expect(lines).toEqual(['deleting', 'ended close']);
          expect(session.active).toBe(false);
        } else {
          expect(heard.map((t) => `${t.from} ${t.event} ${t.to}`)).toEqual([
            `${state} ${event} ${transition.next}`,
          ]);
          expect(lines).toEqual(transition.ledger ? [transition.ledger] : []);
        }
      });
    }
  }

  it('ending: every caller event shares the one DELETE; its answer decides (deleted → ended)', async () => {
    const session = await sessionIn('ending');
    const heard: string[] = [];
    session.observe((t) => heard.push(`${t.from} ${t.event} ${t.to}`));
    const all = caller.map((event) => fire(session, event));
    expect(session.state).toBe('ending');
    (session as unknown as { hold: () => void }).hold();
    await Promise.all(all);
    expect(session.state).toBe('ended');
    expect(heard).toEqual(['ending deleted ended']);
    expect(service.calls('DELETE', DELETES)).toHaveLength(1);
    expect(ledgerOf(session.id)).toEqual(['created', 'deleting', 'ended close']);
  });

  it('ending --delete-failed--> open: still ours, a delete-failed line, and the next close sends again', async () => {
    service.on('DELETE', DELETES, json(500, { error: 'boom' }));
    const session = new RemoteSession(service.api(), service.createSession('').id);
    const heard: string[] = [];
    session.observe((t) => heard.push(`${t.from} ${t.event} ${t.to}`));
    await session.release().catch(() => undefined);
    expect(heard).toEqual(['open close ending', 'ending delete-failed open']);
    expect(TRANSITIONS.ending['delete-failed']?.next).toBe('open');
    expect(session.active).toBe(true);
    expect(ledgerOf(session.id)).toEqual(['created', 'deleting', 'delete-failed']);
    service.off('DELETE');
    await session.release();
    expect(session.state).toBe('ended');
  });
});

describe('one meaning per word: handed over, kept, re-attached', () => {
  it('handed over (keepSession, disconnect()): no longer ours, `ended kept` in the ledger, no DELETE ever', async () => {
    const session = await sessionIn('handed-over');
    await releaseAll();
    expect(session.active).toBe(false);
    expect(ledgerOf(session.id)).toEqual(['created', 'ended kept']);
    expect(service.calls('DELETE', DELETES)).toHaveLength(0);
  });

  it('kept (after a drop): still ours, open in the ledger, ended by the exit paths', async () => {
    const session = await sessionIn('kept');
    expect(session.active).toBe(true);
    expect(openEntries().map((e) => e.id)).toContain(session.id);
    await releaseAll();
    expect(session.state).toBe('ended');
    expect(ledgerOf(session.id)).toEqual(['created', 'deleting', 'ended close']);
  });

  it("re-attached: no longer this object's, no ledger line (still ours: the new session holds it)", async () => {
    const session = await sessionIn('reattached');
    expect(session.active).toBe(false);
    expect(ledgerOf(session.id)).toEqual(['created']);
    expect(openEntries().map((e) => e.id)).toContain(session.id);
    await releaseAll();
    expect(service.calls('DELETE', DELETES)).toHaveLength(0);
  });

  it("the window passing is its own event, made by the session's timer", async () => {
    const session = new RemoteSession(service.api(), service.createSession('').id);
    const heard: string[] = [];
    session.observe((t) => heard.push(`${t.from} ${t.event} ${t.to}`));
    session.drop();
    session.keepFor(20);
    await eventually(() => session.state === 'ended', 5000, 'the window');
    expect(heard).toEqual([
      'open drop dropped',
      'dropped running kept',
      'kept window-passed ending',
      'ending deleted ended',
    ]);
  });
});
