/**
 * A sandbox booted ahead of its command, and the runtime's one spare: a real child process stands
 * in for bwrap and the forwarder (it waits for its command on stdin, as the forwarder does); the
 * spare's parts are fakes that record what was made, booted and removed.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { pidAlive } from '../../../src/emulator/runtime/process-groups.js';
import {
  type BootedSandbox,
  bootSandbox,
  SpareSandbox,
} from '../../../src/emulator/runtime/sandbox-process.js';

/** Waits for its command on stdin, then says it on stderr and exits 0. */
const FORWARDER_LIKE = `let text = ''; process.stdin.on('data', (d) => (text += d)); process.stdin.on('end', () => { process.stderr.write('ran ' + text); process.exit(0); });`;

const booted: BootedSandbox[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((sandbox) => sandbox.kill()));
});

function boot(script = FORWARDER_LIKE): BootedSandbox {
  const sandbox = bootSandbox({ command: process.execPath, args: ['-e', script], env: {} });
  booted.push(sandbox);
  return sandbox;
}

async function stderrOf(child: ChildProcess): Promise<string> {
  let text = '';
  child.stderr!.on('data', (chunk) => {
    text += chunk;
  });
  await once(child, 'exit');
  return text;
}

describe('bootSandbox', () => {
  it('boots ahead and runs the command it is handed, whose stderr the caller reads', async () => {
    const sandbox = boot();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sandbox.alive()).toBe(true);
    const child = sandbox.run(['/usr/bin/chromium', '--headless']);
    expect(await stderrOf(child)).toBe('ran ["/usr/bin/chromium","--headless"]');
    expect(sandbox.alive()).toBe(false);
  });

  it('kill() ends a sandbox nobody took, its whole process group', async () => {
    // A child of the sandbox that would outlive it if only its leader were killed.
    const sandbox = boot(
      `require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); setInterval(() => {}, 1000);`,
    );
    const child = sandbox.run([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await sandbox.kill();
    expect(sandbox.alive()).toBe(false);
    expect(pidAlive(child.pid!)).toBe(false);
  });

  it('one that died before its command is not alive, and handing it one does not throw', async () => {
    const sandbox = boot('process.exit(3)');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sandbox.alive()).toBe(false);
    const child = sandbox.run(['x']);
    expect(child.exitCode).toBe(3);
    await sandbox.kill();
  });

  it("one that could not start is not alive, and its 'error' reaches whoever runs it", async () => {
    const sandbox = bootSandbox({ command: '/nonexistent/bwrap', args: [], env: {} });
    const child = sandbox.run(['x']);
    expect(child.pid).toBeUndefined();
    const error = await new Promise<Error>((resolve) => child.once('error', resolve));
    expect(error.message).toMatch(/ENOENT/);
    expect(sandbox.alive()).toBe(false);
    await sandbox.kill();
  });
});

describe('SpareSandbox', () => {
  interface Dirs {
    n: number;
  }
  function fakeParts(options: { fail?: boolean; dead?: boolean } = {}) {
    const made: number[] = [];
    const removed: number[] = [];
    const killed: number[] = [];
    let next = 0;
    const parts = {
      makeDirs: async (): Promise<Dirs> => {
        made.push(++next);
        return { n: next };
      },
      boot(dirs: Dirs): BootedSandbox {
        if (options.fail) throw new Error('bwrap is gone');
        return {
          run: () => ({}) as ChildProcess,
          alive: () => !options.dead,
          kill: async () => void killed.push(dirs.n),
        };
      },
      removeDirs: async (dirs: Dirs) => void removed.push(dirs.n),
    };
    return { parts, made, removed, killed };
  }
  const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('has none until asked to refill, then one after the delay, handed to exactly one taker', async () => {
    const { parts, made } = fakeParts();
    const spare = new SpareSandbox(parts, 50);
    expect(spare.take()).toBeUndefined();
    spare.refill();
    await tick(10);
    expect(made).toEqual([]);
    expect(spare.take()).toBeUndefined();
    await tick(100);
    expect(made).toEqual([1]);
    expect(spare.take()?.dirs).toEqual({ n: 1 });
    expect(spare.take()).toBeUndefined();
    await spare.close();
  });

  it('waits the whole delay again at each refill, and boots one spare however often it is asked', async () => {
    const { parts, made } = fakeParts();
    const spare = new SpareSandbox(parts, 80);
    spare.refill();
    await tick(50);
    spare.refill();
    await tick(50);
    expect(made).toEqual([]);
    await tick(80);
    expect(made).toEqual([1]);
    spare.refill();
    await tick(120);
    expect(made).toEqual([1]);
    await spare.close();
  });

  it('discards a spare that died instead of handing it over', async () => {
    const { parts, removed, killed } = fakeParts({ dead: true });
    const spare = new SpareSandbox(parts, 0);
    spare.refill();
    await tick(30);
    expect(spare.take()).toBeUndefined();
    await tick(10);
    expect(killed).toEqual([1]);
    expect(removed).toEqual([1]);
  });

  it('removes the dirs of a spare that could not boot, and hands none over', async () => {
    const { parts, made, removed } = fakeParts({ fail: true });
    const spare = new SpareSandbox(parts, 0);
    spare.refill();
    await tick(30);
    expect(made).toEqual([1]);
    expect(removed).toEqual([1]);
    expect(spare.take()).toBeUndefined();
  });

  it('close() ends the ready spare and boots none after, nor one whose wait had begun', async () => {
    const ready = fakeParts();
    const withReady = new SpareSandbox(ready.parts, 0);
    withReady.refill();
    await tick(30);
    await withReady.close();
    expect(ready.killed).toEqual([1]);
    expect(ready.removed).toEqual([1]);
    withReady.refill();
    await tick(30);
    expect(ready.made).toEqual([1]);

    const waiting = fakeParts();
    const withWait = new SpareSandbox(waiting.parts, 50);
    withWait.refill();
    await withWait.close();
    await tick(100);
    expect(waiting.made).toEqual([]);
    expect(withWait.take()).toBeUndefined();
  });
});
