/**
 * The exit hooks send one DELETE per session, however many paths find it: several creates on
 * the wire whose reconciliations list the same running sessions, and a create that answers
 * during the grace period while its launch goes on to open a lease for the same session.
 * Against a scripted service on a real loopback server, counting the DELETEs it receives.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { openSession } from '../../src/launch/open-session.js';
import { tracker } from '../../src/launch/tracker.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { useFakeService } from './fake-service.js';

const service = useFakeService('rb-exit-once-');
const CREATES = /^\/sessions$/;
const ONE = /^\/sessions\/[^/]+$/;
let answerCreates: () => void = () => {};

afterEach(() => answerCreates());

/** The service creates each session at once and holds its answer until `answerCreates()`. */
function holdCreateAnswers(answer: 'drop' | 'send'): void {
  const held = new Promise<void>((resolve) => {
    answerCreates = resolve;
  });
  service.on('POST', CREATES, async (req, res) => {
    const session = service.createSession(req.body);
    await held;
    if (answer === 'drop') return void res.socket?.destroy();
    return json(200, {
      data: { id: session.id, status: 'running', cdp_url: `ws://127.0.0.1:1/x/${session.id}` },
    })(req, res);
  });
}

/** A launch on the client `api` (its own registry), its outcome caught. */
function launch(api: BrowserApi) {
  return openSession(
    { api, preflight: false, country: 'us', timeout: 60_000 },
    'launchRemote',
  ).then(
    (opened) => ({ opened }),
    (error: unknown) => ({ error }),
  );
}

const deletedIds = () =>
  service
    .calls('DELETE', ONE)
    .map((r) => r.url.split('/').pop())
    .sort();

describe('exit hooks: one DELETE per session', () => {
  it('two creates on the wire with the same targeting: each session the reconciliations find is deleted once', async () => {
    holdCreateAnswers('drop');
    const api = service.api();
    const launches = [launch(api), launch(api)];
    await eventually(() => service.calls('POST', CREATES).length === 2, 10_000, 'both creates');
    // Both reconciliations list both sessions: each could be either create's.
    await tracker.endEverything(0);
    const sessions = [...service.sessions.keys()].sort();
    expect(sessions).toHaveLength(2);
    expect(service.running()).toEqual([]);
    expect(deletedIds()).toEqual(sessions);
    // The launches then hear their creates were lost; what they reconcile is already gone.
    answerCreates();
    for (const outcome of await Promise.all(launches)) expect(outcome).toHaveProperty('error');
    expect(deletedIds()).toEqual(sessions);
  });

  it('a create answering during the grace period: its launch opens a lease the exit hooks end without a second DELETE', async () => {
    holdCreateAnswers('send');
    const api = service.api();
    const launched = launch(api);
    await eventually(() => service.calls('POST', CREATES).length === 1, 10_000, 'the create');
    const ending = tracker.endEverything(10_000);
    answerCreates();
    await ending;
    const outcome = await launched;
    const [id] = [...service.sessions.keys()];
    expect(service.running()).toEqual([]);
    expect(deletedIds()).toEqual([id]);
    // The launch's own close() finds its session ended: no DELETE either.
    if ('opened' in outcome) {
      expect(outcome.opened.lease.active).toBe(false);
      await outcome.opened.finish();
    }
    expect(deletedIds()).toEqual([id]);
  });
});
