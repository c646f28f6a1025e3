/**
 * The exit paths on which a session used to leak (issue 11 §2): a real child process that is
 * interrupted, killed or crashes while its session is open, against a scripted service on a real
 * loopback server. (`*.child.test.ts`: the mutation run leaves child-process tests out.)
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { openIntents } from '../../src/launch/ledger.js';
import { reapSessions } from '../../src/launch/reap.js';
import { eventually } from '../helpers/pages.js';
import { runChildScript } from './child-script.js';
import { TOKEN, useFakeService } from './fake-service.js';

const service = useFakeService('rb-leaks-child-');
const SESSIONS = /^\/sessions$/;
const children: ChildProcess[] = [];
let releaseHeld: () => void = () => {};

// Before the service closes: no child left, and no create held on the wire.
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  releaseHeld();
});

/** The service creates the session, then holds its answer until the test ends. */
function holdCreates(): void {
  const held = new Promise<void>((resolve) => {
    releaseHeld = resolve;
  });
  service.on('POST', SESSIONS, async (req, res) => {
    service.createSession(req.body);
    await held;
    res.socket?.destroy();
  });
}

function runChild(mode: string) {
  const run = runChildScript('session-child.ts', {
    CHILD_MODE: mode,
    CHILD_URL: service.origin,
    CHILD_TOKEN: TOKEN,
  });
  children.push(run.child);
  return run;
}

describe('a create in flight when the process goes away', () => {
  it('SIGINT with installExitHooks ends the session of a create still on the wire', async () => {
    holdCreates();
    const run = runChild('hooks');
    await eventually(() => service.calls('POST', SESSIONS).length === 1, 20_000, 'the create');
    run.child.kill('SIGINT');
    expect((await run.exited).signal).toBe('SIGINT');
    expect(service.running()).toEqual([]);
  });

  it('SIGKILL with the watchdog: the watchdog reconciles the create still on the wire', async () => {
    holdCreates();
    const run = runChild('watchdog');
    await eventually(() => service.calls('POST', SESSIONS).length === 1, 20_000, 'the create');
    run.child.kill('SIGKILL');
    await run.exited;
    await eventually(() => service.running().length === 0, 20_000, 'the watchdog to end it');
  });

  it("SIGKILL with the watchdog after a create's answer, before its lease: the watchdog ends the session", async () => {
    const run = runChild('watchdog create-only');
    await eventually(() => /created \S+/.test(run.output()), 10_000, 'the create answered');
    run.child.kill('SIGKILL');
    await run.exited;
    await eventually(() => service.running().length === 0, 8_000, 'the watchdog to end it');
    expect(service.calls('DELETE', /^\/sessions\/[^/]+$/)).toHaveLength(1);
  });

  it('SIGKILL without hooks: reap reconciles the intent the dead process left', async () => {
    holdCreates();
    const run = runChild('');
    await eventually(() => service.calls('POST', SESSIONS).length === 1, 20_000, 'the create');
    run.child.kill('SIGKILL');
    await run.exited;
    const [leaked] = service.running();
    expect(leaked).toBeDefined();
    const result = await reapSessions({ api: service.api() });
    expect(result.ended).toEqual([leaked?.id]);
    expect(service.running()).toEqual([]);
    expect(openIntents().filter((i) => i.pid === run.child.pid)).toEqual([]);
  });
});

describe('exit hooks on uncaught errors', () => {
  for (const kind of ['uncaught', 'rejection'] as const) {
    it(`${kind}: deletes the session, then prints the error and exits 1 as Node would`, async () => {
      const run = runChild(`hooks ${kind}`);
      const { code } = await run.exited;
      const id = /session (\S+)/.exec(run.output())?.[1] ?? '(none)';
      expect(code).toBe(1);
      expect(run.output()).toContain(`boom-${kind}`);
      expect(service.sessions.get(id)?.status).toBe('ended');
    });
  }
});
