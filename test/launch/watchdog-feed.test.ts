/**
 * What the watchdog child hears (src/launch/watchdog-feed.ts): the state every client holds
 * when it starts, then each change, in the messages watchdog-mirror.ts reads. In-process; the
 * spawned child is in leak-paths.child.test.ts and the exit matrix.
 */
import { describe, expect, it } from 'vitest';
import type { SessionCreated } from '../../src/browser-api/index.js';
import { beginCreate } from '../../src/launch/creates-in-flight.js';
import { registryOf } from '../../src/launch/launch-registry.js';
import { SessionLease } from '../../src/launch/session-lease.js';
import { feedWatchdog } from '../../src/launch/watchdog-feed.js';
import type { WatchdogMessage } from '../../src/launch/watchdog-mirror.js';
import { deferred } from '../helpers/deferred.js';
import { useFakeService } from './fake-service.js';

const service = useFakeService('rb-watchdog-feed-');

const created = (id: string) => ({ id, status: 'running', cdp_url: 'ws://x/y' }) as SessionCreated;

describe('feedWatchdog', () => {
  it('first sends what every client holds: its leases and its creates, targeting only', async () => {
    const first = service.api();
    const second = service.api();
    const lease = new SessionLease(first, service.createSession('').id);
    const answer = deferred<SessionCreated>();
    const create = beginCreate(
      second,
      { country: 'us', proxy_password: 'pw' } as never,
      () => answer.promise,
    );
    const messages: WatchdogMessage[] = [];
    const stop = feedWatchdog((m) => messages.push(m));
    try {
      expect(messages).toContainEqual({ add: lease.id });
      expect(messages).toContainEqual({
        intent: {
          intent: create.intent.intent,
          at: create.intent.at,
          targeting: { country: 'us' },
        },
      });
      expect(messages).toHaveLength(2);
      // Never the origin or the pid, let alone a secret.
      expect(JSON.stringify(messages)).not.toMatch(/pw|origin|pid|127\.0\.0\.1/);
    } finally {
      stop();
      answer.resolve(created(service.createSession('').id));
      await create.call;
      await lease.release();
    }
  });

  it('then each change: a create, its session in the message that settles it, a release', async () => {
    const api = service.api();
    const messages: WatchdogMessage[] = [];
    const stop = feedWatchdog((m) => messages.push(m));
    try {
      const answer = deferred<SessionCreated>();
      const create = beginCreate(api, { country: 'de' } as never, () => answer.promise);
      expect(messages).toEqual([
        {
          intent: {
            intent: create.intent.intent,
            at: create.intent.at,
            targeting: { country: 'de' },
          },
        },
      ]);
      const { id } = service.createSession('');
      answer.resolve(created(id));
      await create.call;
      await Promise.resolve();
      expect(messages[1]).toEqual({ settled: create.intent.intent, add: id });
      const lease = new SessionLease(api, id);
      await lease.release();
      // The lease opens and closes; the DELETE's end arrives too (idempotent on the other side).
      expect(messages.slice(2)).toEqual([{ add: id }, { remove: id }, { remove: id }]);
    } finally {
      stop();
    }
  });

  it('a create that fails settles without a session', async () => {
    const api = service.api();
    const messages: WatchdogMessage[] = [];
    const stop = feedWatchdog((m) => messages.push(m));
    try {
      const answer = deferred<SessionCreated>();
      const create = beginCreate(api, {} as never, () => answer.promise);
      answer.reject(new Error('no answer'));
      await create.call.catch(() => {});
      create.settle();
      // Strict: no `add` key at all, not even undefined.
      expect(messages).toStrictEqual([
        { intent: { intent: create.intent.intent, at: create.intent.at, targeting: {} } },
        { settled: create.intent.intent },
      ]);
    } finally {
      stop();
    }
  });

  it('a session ended with no lease (an abandoned create) leaves the mirror', async () => {
    const api = service.api();
    const { id } = service.createSession('');
    const messages: WatchdogMessage[] = [];
    const stop = feedWatchdog((m) => messages.push(m));
    try {
      await registryOf(api).endOnce(api, id, 5000);
      expect(messages).toEqual([{ remove: id }]);
    } finally {
      stop();
    }
  });

  it('sends nothing after the returned function is called', async () => {
    const api = service.api();
    const messages: WatchdogMessage[] = [];
    feedWatchdog((m) => messages.push(m))();
    const lease = new SessionLease(api, service.createSession('').id);
    await lease.release();
    expect(messages).toEqual([]);
  });
});
