/**
 * tracker.endEverything() driven in-process, as the exit hooks call it, against the scripted service:
 * every outcome of a create still on the wire when the process goes away, and the leases a
 * finishing create opens meanwhile. (The child-process exit tests cover the hooks themselves.)
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { ledgerPath, openEntries, openIntents } from '../../src/launch/ledger.js';
import { SessionLease } from '../../src/launch/session-lease.js';
import { tracker } from '../../src/launch/tracker.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { useFakeService } from './fake-service.js';

const service = useFakeService('rb-exit-cleanup-');
const SESSIONS = /^\/sessions$/;
const ONE = /^\/sessions\/[^/]+$/;
const BODY = { country: 'us' };
let releaseHeld: () => void = () => {};

// Before the service closes: no create left on the wire, where the next test's tracker.endEverything()
// (which walks every client's registry) would find it.
afterEach(async () => {
  releaseHeld();
  for (const create of tracker.creates()) {
    await create.call.catch(() => undefined);
    tracker.refused(create);
  }
});

/** A create on the wire, sent as create-session.ts sends it. */
function send(api: BrowserApi) {
  return tracker.createSent(api, BODY, () => api.sessions.create(BODY));
}

/** The service holds every create's answer until the test ends (after making the session, if `make`). */
function holdCreates(make: boolean): void {
  const held = new Promise<void>((resolve) => {
    releaseHeld = resolve;
  });
  service.on('POST', SESSIONS, async (req, res) => {
    if (make) service.createSession(req.body);
    await held;
    res.socket?.destroy();
  });
}

/** How the ledger says `id` ended (its last `ended` line), if it does. */
function endedBy(id: string): string | undefined {
  const lines = readFileSync(ledgerPath(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { op: string; id?: string; by?: string });
  return lines.filter((l) => l.op === 'ended' && l.id === id).pop()?.by;
}

describe('tracker.endEverything() with a create still on the wire', () => {
  it('deletes the session of a create that answers within the grace period, and closes its ledger entry', async () => {
    const api = service.api();
    const create = send(api);
    await tracker.endEverything(10_000);
    const { id } = await create.call;
    expect(service.calls('DELETE', ONE).map((r) => r.url.split('/').pop())).toEqual([id]);
    expect(service.sessions.get(id)?.status).toBe('ended');
    expect(endedBy(id)).toBe('close');
    expect(openEntries().map((e) => e.id)).not.toContain(id);
    expect(openIntents()).toEqual([]);
  });

  it("records a created session that is already gone (404) as 'gone', and one whose DELETE failed as still open", async () => {
    const api = service.api();
    service.on('DELETE', ONE, json(404, { error: { code: 'not_found', message: 'gone' } }));
    const gone = send(api);
    await tracker.endEverything(10_000);
    const goneId = (await gone.call).id;
    expect(endedBy(goneId)).toBe('gone');

    service.on('DELETE', ONE, json(500, { error: { code: 'internal', message: 'down' } }));
    const failed = send(api);
    await expect(tracker.endEverything(10_000)).resolves.toBeUndefined();
    const failedId = (await failed.call).id;
    expect(endedBy(failedId)).toBeUndefined();
    expect(openEntries().map((e) => e.id)).toContain(failedId);
  });

  it('settles a create the service refused outright (400) without listing sessions', async () => {
    const api = service.api();
    service.on('POST', SESSIONS, json(400, { error: { code: 'invalid', message: 'bad country' } }));
    const create = send(api);
    await tracker.endEverything(10_000);
    expect(service.calls('GET', SESSIONS)).toHaveLength(0);
    expect(openIntents()).toEqual([]);
    expect(tracker.creates().filter((c) => c.api === api)).not.toContain(create);
  });

  it('reconciles a lost create (502 after the service made the session): the session is ended and the intent settled', async () => {
    const api = service.api();
    service.on('POST', SESSIONS, (req, res) => {
      service.createSession(req.body);
      return json(502, { error: { code: 'bad_gateway', message: 'upstream' } })(req, res);
    });
    send(api);
    await tracker.endEverything(10_000);
    expect(service.calls('GET', SESSIONS)).toHaveLength(1);
    expect(service.running()).toEqual([]);
    expect(openIntents()).toEqual([]);
  });

  it('settles a lost create (502) that left nothing running: its answer came, nothing is still coming', async () => {
    const api = service.api();
    service.on(
      'POST',
      SESSIONS,
      json(502, { error: { code: 'bad_gateway', message: 'upstream' } }),
    );
    send(api);
    await tracker.endEverything(10_000);
    expect(service.calls('GET', SESSIONS)).toHaveLength(1);
    expect(openIntents()).toEqual([]);
  });

  it('ends the session of a create still pending after the grace period, found by its targeting, and settles it', async () => {
    const api = service.api();
    holdCreates(true);
    const create = send(api);
    // Another process's session with other targeting is left alone.
    const other = service.createSession(JSON.stringify({ country: 'de' }));
    await eventually(() => service.running().length === 2, 10_000, 'the create to arrive');
    await tracker.endEverything(50);
    expect(service.running()).toEqual([other]);
    expect(openIntents()).toEqual([]);
    expect(tracker.creates().filter((c) => c.api === api)).not.toContain(create);
  });

  it('leaves two pending creates that found nothing open in the ledger for reap, without waiting on each other', async () => {
    const api = service.api();
    holdCreates(false);
    const a = send(api);
    const b = send(api);
    await eventually(() => service.calls('POST', SESSIONS).length === 2, 10_000, 'both creates');
    await tracker.endEverything(50);
    expect(service.calls('GET', SESSIONS)).toHaveLength(2);
    expect(
      openIntents()
        .map((i) => i.intent)
        .sort(),
    ).toEqual([a.intent.intent, b.intent.intent].sort());
  });
});

describe('tracker.endEverything() and leases', () => {
  it('deletes every open lease, also one that a create answering meanwhile opens', async () => {
    const api = service.api();
    const open = new SessionLease(api, service.createSession('').id);
    const create = send(api);
    // What open-session.ts does with a create's answer: a lease for the new session.
    const late = create.call.then(({ id }) => new SessionLease(api, id));
    await tracker.endEverything(10_000);
    const lease = await late;
    expect(open.active).toBe(false);
    expect(lease.active).toBe(false);
    expect(service.running()).toEqual([]);
  });
});
