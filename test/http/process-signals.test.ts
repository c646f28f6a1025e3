/**
 * src/http/process-signals.ts in real processes (test/fixtures/process-signals-child.ts) that
 * receive real signals: a cooperative cleanup ends the process with the signal when no host
 * listens, a host's handler keeps its own shutdown, removers take every listener off, an
 * uncaught exception ends with code 1 or is left to the host, and `exit` listeners run on an
 * ordinary end.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/pages.js';
import { type ChildScript, runChildScript } from '../launch/child-script.js';

const CHILD = 'process-signals-child.ts';

async function started(scenario: string): Promise<ChildScript> {
  const script = runChildScript(CHILD, { SCENARIO: scenario });
  await eventually(() => /ready \d+/.test(script.output()), 20_000, `${scenario} ready`);
  return script;
}

/** The lines the child printed, without its `ready` line. */
const lines = (script: ChildScript) =>
  script
    .output()
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('ready '));

describe('cleanupOnSignals with no host handler', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`runs the cleanup, then dies of ${signal} without running exit listeners`, async () => {
      const script = await started('sync');
      script.child.kill(signal);
      expect(await script.exited).toEqual({ code: null, signal });
      expect(lines(script)).toEqual([`cleanup ${signal}`, `before-reraise ${signal}`]);
    });
  }

  it('waits for a cleanup that returns a promise before it re-raises', async () => {
    const script = await started('async');
    script.child.kill('SIGTERM');
    expect(await script.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(lines(script)).toEqual(['cleanup SIGTERM', 'cleanup done', 'before-reraise SIGTERM']);
  });

  it('two cooperative cleanups do not wait for each other: both run, and the signal ends the process', async () => {
    const script = await started('two-cooperative');
    script.child.kill('SIGINT');
    expect(await script.exited).toEqual({ code: null, signal: 'SIGINT' });
    // The synchronous one re-raised first; the asynchronous one still finished before the end.
    expect(lines(script)).toContain('second SIGINT');
    expect(lines(script)).toContain('first SIGINT');
  });

  it('a shell sees the status of a process killed by the signal: 130 for SIGINT, 143 for SIGTERM', async () => {
    for (const [signal, status] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const script = new URL(`../fixtures/${CHILD}`, import.meta.url).pathname;
      const shell = spawn(
        'sh',
        ['-c', `"${process.execPath}" --import tsx "${script}"; echo "status $?"`],
        { env: { ...process.env, SCENARIO: 'sync' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      shell.stdout.on('data', (chunk: Buffer) => {
        out += chunk;
      });
      const ended = new Promise((resolve) => shell.once('exit', resolve));
      await eventually(() => /ready \d+/.test(out), 20_000, 'the child under sh');
      process.kill(Number(/ready (\d+)/.exec(out)?.[1]), signal);
      expect(await ended).toBe(0);
      expect(out).toContain(`cleanup ${signal}`);
      expect(out).toContain(`status ${status}\n`);
    }
  });
});

describe("a host's own handler", () => {
  for (const how of ['plain', 'module'] as const) {
    it(`keeps its own shutdown and exit code (${how === 'plain' ? 'process.on' : 'onSignals'}); the cleanup still runs and does not re-raise`, async () => {
      const script = await started(`host-${how}`);
      script.child.kill('SIGINT');
      expect(await script.exited).toEqual({ code: 7, signal: null });
      expect(lines(script)).toEqual(['cleanup SIGINT', 'host SIGINT', 'host stopped']);
    });
  }
});

describe('the removers', () => {
  it('take every listener off again, so the signal does what Node does by default', async () => {
    const script = await started('removed');
    const [before, installed, after] = lines(script).map(
      (line) => JSON.parse(line.slice(line.indexOf(' ') + 1)) as Record<string, number>,
    );
    const added = Object.fromEntries(
      Object.entries(installed ?? {}).map(([event, n]) => [event, n - (before?.[event] ?? 0)]),
    );
    expect(added).toEqual({ SIGINT: 2, SIGTERM: 2, exit: 1, beforeExit: 1, uncaughtException: 1 });
    expect(after).toEqual(before);
    script.child.kill('SIGTERM');
    expect(await script.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(lines(script)).toHaveLength(3);
  });
});

describe('cleanupOnUncaught', () => {
  it('with no host listener: runs the cleanup, prints the error as Node would, exits 1', async () => {
    const script = await started('uncaught');
    expect(await script.exited).toEqual({ code: 1, signal: null });
    const out = script.output();
    expect(lines(script).slice(0, 3)).toEqual(['cleanup boom', 'cleanup done', 'before-exit']);
    expect(out).toContain('Error: boom');
    expect(out).toMatch(/\n {4}at /);
  });

  it("with the host's listener: runs the cleanup and leaves the error and the exit to the host", async () => {
    const script = await started('uncaught-host');
    expect(await script.exited).toEqual({ code: 5, signal: null });
    expect(lines(script)).toEqual(['cleanup boom', 'host boom', 'cleanup done']);
  });
});

describe('onProcessEnd', () => {
  it('runs beforeExit and exit listeners with the exit code when the process ends by itself', async () => {
    const script = runChildScript(CHILD, { SCENARIO: 'end' });
    expect(await script.exited).toEqual({ code: 3, signal: null });
    expect(lines(script)).toEqual(['beforeExit listener 3', 'exit listener 3']);
  });
});
