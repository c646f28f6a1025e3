/**
 * startWatchdog() (src/launch/watchdog.ts) from the parent's side, with its real child process:
 * what it spawns and with which environment, the once-per-process rule, a clean stop, and (the
 * parent's death, seen from the child: the channel closing without a goodbye) the child ending
 * what the parent held. A parent really SIGKILLed is in leak-paths.child.test.ts and the exit
 * matrix. Then, in-process, what the child hears (`feedWatchdog`): what the tracker holds when it
 * starts, then each change, in the messages watchdog-mirror.ts reads.
 */
import type { ChildProcess, spawn as Spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionCreated } from '../../src/browser-api/index.js';
import { ledgerPath } from '../../src/launch/ledger.js';
import { RemoteSession as SessionLease } from '../../src/launch/remote-session.js';
import { tracker } from '../../src/launch/tracker.js';
import {
  feedWatchdog,
  startWatchdog,
  type Watchdog,
  watchdogCommand,
} from '../../src/launch/watchdog.js';
import type { WatchdogMessage } from '../../src/launch/watchdog-mirror.js';
import { deferred } from '../helpers/deferred.js';
import { TOKEN, useFakeService } from './fake-service.js';

const service = useFakeService('rb-watchdog-');
const ONE = /^\/sessions\/[^/]+$/;
const childProcess = process.getBuiltinModule('node:child_process');

const spawned: ChildProcess[] = [];
const started: Watchdog[] = [];
afterEach(() => {
  for (const w of started.splice(0)) w.stop();
  for (const child of spawned.splice(0)) child.kill('SIGKILL');
  vi.restoreAllMocks();
});

/** Spies on spawn, keeping the real one, so the test holds the child. */
function captureSpawn(): { calls: Parameters<typeof Spawn>[] } {
  const real = childProcess.spawn.bind(childProcess) as typeof Spawn;
  const calls: Parameters<typeof Spawn>[] = [];
  vi.spyOn(childProcess, 'spawn').mockImplementation(((...args: Parameters<typeof Spawn>) => {
    calls.push(args);
    const child = (real as (...a: unknown[]) => ChildProcess)(...args);
    spawned.push(child);
    return child;
  }) as typeof Spawn);
  return { calls };
}

const alive = (pid: number | undefined) => {
  try {
    return pid !== undefined && process.kill(pid, 0);
  } catch {
    return false;
  }
};

const start = async () => {
  const watchdog = await startWatchdog({ baseUrl: service.origin, token: TOKEN });
  started.push(watchdog);
  return watchdog;
};

describe('startWatchdog', () => {
  it('spawns one detached child per process, with the credentials in its environment, not its argv', async () => {
    const { calls } = captureSpawn();
    const watchdog = await start();
    expect(await start()).toBe(watchdog);
    expect(calls).toHaveLength(1);
    const [command, args, options] = calls[0] as [string, string[], Record<string, unknown>];
    expect(command).toBe(process.execPath);
    expect(args.join(' ')).toMatch(/watchdog(-child\.ts|\.js)$/);
    expect(JSON.stringify(args)).not.toContain(TOKEN);
    expect(options).toMatchObject({ detached: true, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    expect(options.env).toMatchObject({
      REMOTE_BROWSER_WATCHDOG_ORIGIN: service.origin,
      REMOTE_BROWSER_WATCHDOG_TOKEN: TOKEN,
    });
    expect((options.env as Record<string, string>).REMOTE_BROWSER_WATCHDOG_LEDGER).toBe(
      ledgerPath(),
    );
    expect(watchdog.pid).toBe(spawned[0]?.pid);
    expect(alive(watchdog.pid)).toBe(true);
  });

  it('when the channel closes without a goodbye, the child deletes the sessions the parent held, then exits', async () => {
    captureSpawn();
    const watchdog = await start();
    const child = spawned[0] as ChildProcess;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const kept = service.createSession('').id;
    const lease = new SessionLease(service.api(), service.createSession('').id);
    const released = new SessionLease(service.api(), service.createSession('').id);
    await released.release();
    // The parent "dies": its end of the channel closes, no goodbye sent.
    // Written in order: once a message of ours is written, the watchdog's went before it.
    await new Promise((resolve) => child.send({}, resolve));
    child.disconnect();
    await exited;
    expect(service.calls('DELETE', ONE).map((r) => r.url.split('/').pop())).toEqual([
      released.id,
      lease.id,
    ]);
    expect(service.running().map((s) => s.id)).toEqual([kept]);
    expect(alive(watchdog.pid)).toBe(false);
    // The parent lives on without its watchdog: a new lease and a stop() must not throw.
    const later = new SessionLease(service.api(), service.createSession('').id);
    expect(() => watchdog.stop()).not.toThrow();
    await later.release();
  });

  it('stop() says goodbye: the child exits without deleting, and a later start spawns a new one', async () => {
    const { calls } = captureSpawn();
    const first = await start();
    const child = spawned[0] as ChildProcess;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const lease = new SessionLease(service.api(), service.createSession('').id);
    first.stop();
    await exited;
    expect(service.calls('DELETE', ONE)).toEqual([]);
    expect(lease.active).toBe(true);
    const second = await start();
    expect(second).not.toBe(first);
    expect(calls).toHaveLength(2);
  });

  it('rejects when the child cannot be spawned', async () => {
    const real = childProcess.spawn.bind(childProcess) as typeof Spawn;
    vi.spyOn(childProcess, 'spawn').mockImplementation(((_c: string, a: string[], o: object) =>
      real('/nonexistent/node', a, o as never)) as typeof Spawn);
    await expect(startWatchdog({ baseUrl: service.origin, token: TOKEN })).rejects.toThrow(
      /ENOENT/,
    );
  });

  it('rejects when the child exits before it is ready', async () => {
    const real = childProcess.spawn.bind(childProcess) as typeof Spawn;
    vi.spyOn(childProcess, 'spawn').mockImplementation(((_c: string, _a: string[], o: object) => {
      const child = real(process.execPath, ['-e', 'process.exit(3)'], o as never);
      spawned.push(child);
      return child;
    }) as typeof Spawn);
    await expect(startWatchdog({ baseUrl: service.origin, token: TOKEN })).rejects.toThrow(
      'watchdog exited early (code 3)',
    );
  });
});

describe('watchdogCommand', () => {
  it('runs the built dist/watchdog.js beside the module or one folder up, else the source through tsx', () => {
    const root = mkdtempSync(join(tmpdir(), 'rb-watchdog-cmd-'));
    try {
      const chunks = join(root, 'chunks');
      mkdirSync(chunks);
      expect(watchdogCommand(chunks)).toEqual({
        command: process.execPath,
        args: ['--import', 'tsx', join(chunks, 'watchdog-child.ts')],
      });
      writeFileSync(join(root, 'watchdog.js'), '');
      expect(watchdogCommand(chunks)).toEqual({
        command: process.execPath,
        args: [join(root, 'watchdog.js')],
      });
      writeFileSync(join(chunks, 'watchdog.js'), '');
      expect(watchdogCommand(chunks).args).toEqual([join(chunks, 'watchdog.js')]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

const created = (id: string) => ({ id, status: 'running', cdp_url: 'ws://x/y' }) as SessionCreated;

describe('feedWatchdog', () => {
  it('first sends what every client holds: its leases and its creates, targeting only', async () => {
    const first = service.api();
    const second = service.api();
    const lease = new SessionLease(first, service.createSession('').id);
    const answer = deferred<SessionCreated>();
    const create = tracker.createSent(
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
      const create = tracker.createSent(api, { country: 'de' } as never, () => answer.promise);
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
      const create = tracker.createSent(api, {} as never, () => answer.promise);
      answer.reject(new Error('no answer'));
      await create.call.catch(() => {});
      tracker.refused(create);
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
      await tracker.end(api, id, 'close', { timeout: 5000 });
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
