/**
 * SessionLease with a real child process: what the watchdog ends after a SIGKILL once the
 * process released some of its leases. (`*.child.test.ts`: the mutation run leaves child-process
 * tests out.)
 */
import { describe, expect, it } from 'vitest';
import { openEntries } from '../../src/launch/ledger.js';
import { eventually } from '../helpers/pages.js';
import { runChildScript } from './child-script.js';
import { TOKEN, useFakeService } from './fake-service.js';

const service = useFakeService('rb-lease-child-');
const DELETES = /^\/sessions\/[^/]+$/;

describe('SessionLease', () => {
  it('after a double release, the watchdog of a SIGKILLed process ends only what is still held', async () => {
    const first = service.createSession('').id;
    const second = service.createSession('').id;
    const { child, output, exited } = runChildScript('lease-child.ts', {
      LEASE_CHILD_URL: service.origin,
      LEASE_CHILD_TOKEN: TOKEN,
      LEASE_CHILD_IDS: `${first},${second}`,
    });
    await eventually(
      () => output().includes('released') || child.exitCode !== null,
      15_000,
      'the child',
    );
    expect(output()).toContain('released');
    child.kill('SIGKILL');
    await exited;
    await eventually(
      () => service.sessions.get(second)?.status === 'ended',
      15_000,
      'the watchdog',
    );
    const deleted = service.calls('DELETE', DELETES).map((r) => r.url.split('/').pop());
    expect(deleted.sort()).toEqual([first, second]);
    // The watchdog records what it ended: a later reap neither DELETEs it again nor counts it.
    await eventually(() => !openEntries().some((e) => e.id === second), 5000, 'the ledger line');
  });
});
