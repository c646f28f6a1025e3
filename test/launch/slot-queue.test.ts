/**
 * The local slot queue (issue 14, P3): a 429 on create teaches this process the account's
 * limit; launches past it wait for one of this process's own sessions to end, in order, and
 * then create at once: not after the service's Retry-After (600 s here, longer than any test
 * may run, so a launch that is not woken cannot pass) and without asking the service meanwhile.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { LaunchError } from '../../src/launch/errors.js';
import { type OpenedSession, openSession } from '../../src/launch/open-session.js';
import { json } from '../helpers/http-server.js';
import { TOKEN, useFakeService } from './fake-service.js';

const LIMIT = 2;
const CREATES = /^\/sessions$/;
const service = useFakeService('rb-slots-');

beforeEach(() => {
  // The account's concurrency limit, as the service enforces it.
  service.on('POST', CREATES, (req, res) => {
    const running = service.running().length;
    if (running >= LIMIT) {
      return json(
        429,
        {
          error: { code: 'rate_limited', message: 'concurrent session limit reached' },
          limit_type: 'sessions',
          current_usage: running,
          limit: LIMIT,
          retry_after: 600,
        },
        { 'retry-after': '600' },
      )(req, res);
    }
    const session = service.createSession(req.body);
    return json(200, {
      data: { id: session.id, status: 'running', cdp_url: `ws://127.0.0.1:1/x/${session.id}` },
    })(req, res);
  });
});

const launch = () =>
  openSession(
    { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
    'launchRemote',
  );
const launchOn = (api: BrowserApi, timeout?: number) =>
  openSession({ api, preflight: false, ...(timeout ? { timeout } : {}) }, 'launchRemote');
const creates = () => service.calls('POST', CREATES).length;

describe('the local slot queue', () => {
  it('a launch refused with 429 creates as soon as a session of this process ends', async () => {
    const a = await launch();
    const b = await launch();
    const order: string[] = [];
    const c = launch().then((opened) => {
      order.push('c created');
      return opened;
    });
    // c has been refused once (its 429 is in) before a ends.
    await until(() => creates() === 3);
    order.push('a ending');
    await a.finish();
    const opened = await c;
    expect(order).toEqual(['a ending', 'c created']);
    // One refusal and one retry: no polling in between.
    expect(creates()).toBe(4);
    await Promise.all([b.finish(), opened.finish()]);
  });

  it('past the learned limit, launches queue here in order and ask the service only when woken', async () => {
    const a = await launch();
    const b = await launch();
    const refused = launch(); // teaches the limit: 2
    await until(() => creates() === 3);
    await a.finish();
    const c = await refused;
    expect(creates()).toBe(4);

    const order: string[] = [];
    const track = (name: string) => (opened: OpenedSession) => {
      order.push(name);
      return opened;
    };
    const d = launch().then(track('d'));
    const e = launch().then(track('e'));
    await b.finish();
    const dOpened = await d;
    // d was woken by b's end and created once; e has not asked the service at all.
    expect(creates()).toBe(5);
    expect(order).toEqual(['d']);
    await c.finish();
    const eOpened = await e;
    expect(order).toEqual(['d', 'e']);
    expect(creates()).toBe(6);
    expect(service.calls('POST', CREATES).length).toBe(6);
    await Promise.all([dOpened.finish(), eOpened.finish()]);
  });

  it("launches refused together each create once a session of ours ends, not on each other's 429", async () => {
    // Four at once on a limit of 2 the client does not know yet: two are created, two refused.
    const opened: OpenedSession[] = [];
    const launches = Array.from({ length: 4 }, () =>
      launch().then((o) => {
        opened.push(o);
        return o;
      }),
    );
    await until(() => opened.length === 2 && creates() === 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // A refused launch giving up its slot frees nothing: the other refused one did not ask again.
    expect(creates()).toBe(4);
    const [a, b] = opened as [OpenedSession, OpenedSession];
    // Each end lets exactly one waiting launch create, at once (each woken one asks, rather
    // than queueing again behind the other).
    await a.finish();
    await until(() => opened.length === 3);
    expect(creates()).toBe(5);
    await b.finish();
    await until(() => opened.length === 4);
    expect(creates()).toBe(6);
    await Promise.all(launches);
    await Promise.all(opened.slice(2).map((o) => o.finish()));
  });

  it("is the client's own: another client on the same account knows nothing of it and asks", async () => {
    const mine = service.api();
    const a = await launchOn(mine);
    const b = await launchOn(mine);
    const refused = launchOn(mine); // teaches `mine` the limit: 2
    await until(() => creates() === 3);
    await a.finish();
    const c = await refused;
    expect(creates()).toBe(4);
    // `mine` queues without asking; a new client asks, and with every session counted not its
    // own and a Retry-After past its timeout, fails at once.
    const queued = launchOn(mine);
    const error = await launchOn(service.api(), 2000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LaunchError);
    expect((error as Error).message).toContain('stayed full');
    expect(creates()).toBe(5);
    await b.finish();
    const d = await queued;
    expect(creates()).toBe(6);
    await Promise.all([c.finish(), d.finish()]);
  });
});

/** Waits (without a time bound of its own: the test's timeout is the bound) until `check()`. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}
