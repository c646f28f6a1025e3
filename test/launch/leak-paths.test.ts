/**
 * The paths on which a session used to leak (issue 11 §2), against a scripted service on a real
 * loopback server. The exit paths, which need a real child process, are in leak-paths.child.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { LaunchError } from '../../src/launch/errors.js';
import { installExitHooks } from '../../src/launch/exit-hooks.js';
import { openEntries, openIntents } from '../../src/launch/ledger.js';
import { openSession } from '../../src/launch/open-session.js';
import { reapSessions } from '../../src/launch/reap.js';
import { RemoteSession as SessionLease } from '../../src/launch/remote-session.js';
import { json } from '../helpers/http-server.js';
import { TOKEN, useFakeService } from './fake-service.js';

const service = useFakeService('rb-leaks-');
const SESSIONS = /^\/sessions$/;
const ONE = /^\/sessions\/[^/]+$/;

const options = () => ({
  baseUrl: service.origin,
  token: TOKEN,
  proxyPassword: 'p',
  preflight: false as const,
  country: 'us',
});

describe('a create in flight when the process goes away', () => {
  it('writes the intent (targeting and time) to the ledger before the request leaves', async () => {
    const seen: unknown[] = [];
    service.on('POST', SESSIONS, (req, res) => {
      seen.push(...openIntents().map((i) => i.targeting));
      json(200, {
        data: { id: service.createSession(req.body).id, status: 'running', cdp_url: 'ws://x/y' },
      })(req, res);
    });
    const opened = await openSession(options(), 'launchRemote');
    expect(seen).toEqual([{ country: 'us' }]);
    // Settled once the create answered.
    expect(openIntents()).toEqual([]);
    await opened.finish();
  });
});

describe('a gateway error after the service created the session', () => {
  for (const status of [502, 504]) {
    it(`${status} on create is reconciled like a lost response`, async () => {
      let id = '';
      service.on('POST', SESSIONS, (req, res) => {
        id = service.createSession(req.body).id;
        json(status, { error: { code: 'gateway', message: 'upstream timed out' } })(req, res);
      });
      const err = await openSession(options(), 'launchRemote').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LaunchError);
      expect((err as Error).message).toMatch(/got no answer.*was ended.*not retried/);
      expect((err as Error).message).toContain(`(${id}) was ended`);
      expect(service.running()).toEqual([]);
      expect(service.calls('POST', SESSIONS)).toHaveLength(1);
    });
  }
});

describe('a DELETE that keeps failing', () => {
  it('says the session is still running and how to end it; a later close() tries again', async () => {
    const opened = await openSession(options(), 'launchRemote');
    const id = opened.info.id;
    service.on('DELETE', ONE, json(500, { error: { code: 'internal', message: 'boom' } }));
    const err = await opened.finish().catch((e: unknown) => e);
    expect((err as Error).message).toContain(`session ${id} is still running`);
    expect((err as Error).message).toContain(`remote-browser sessions end ${id}`);
    expect(openEntries().find((e) => e.id === id)?.state).toBe('delete-failed');
    service.off('DELETE');
    await opened.finish();
    expect(service.calls('DELETE', ONE)).toHaveLength(2);
    expect(service.running()).toEqual([]);
    expect(openEntries().map((e) => e.id)).not.toContain(id);
  });

  it('reap ends a session whose delete failed by default, even of a live process', async () => {
    const api = service.api();
    const { id } = service.createSession('');
    const lease = new SessionLease(api, id);
    service.on('DELETE', ONE, json(500, { error: { code: 'internal', message: 'boom' } }));
    await expect(lease.release()).rejects.toThrow(/still running/);
    service.off('DELETE');
    const result = await reapSessions({ api });
    expect(result.ended).toEqual([id]);
    expect(service.running()).toEqual([]);
  });
});

describe('ledger states', () => {
  it("reap counts as ended only sessions that were running (a cut-off exit's are already gone)", async () => {
    const api = service.api();
    const hooks = installExitHooks({ signals: [] });
    try {
      const lease = new SessionLease(api, service.createSession('').id);
      // The DELETE reaches the service, then the host exits before its answer is recorded.
      service.on('DELETE', ONE, (req, res) => {
        const id = req.url.split('/').pop() as string;
        const s = service.sessions.get(id);
        if (s) s.status = 'ended';
        res.socket?.destroy();
      });
      await lease.release().catch(() => {});
      expect(openEntries().map((e) => e.state)).toEqual(['delete-failed']);
      service.off('DELETE');
      const result = await reapSessions({ api });
      expect(result.ended).toEqual([]);
      expect(result.alreadyGone).toEqual([lease.id]);
    } finally {
      hooks();
    }
  });
});
