/**
 * process-groups.ts in real processes: a detached group (Chromium, its zygote, its renderers)
 * is killed whole, and a process that owns groups and temp dirs takes them with it however it
 * ends: an ordinary exit, an uncaught error, SIGTERM or SIGINT (SIGKILL cannot be caught).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  groupAlive,
  killGroup,
  pidAlive,
  waitForGroupGone,
} from '../../../src/emulator/runtime/process-groups.js';
import { eventually } from '../../helpers/pages.js';
import { runChildScript } from '../../launch/child-script.js';

async function owner(scenario: string) {
  const script = runChildScript('../emulator/runtime/fixtures/process-groups-child.ts', {
    SCENARIO: scenario,
  });
  await eventually(() => /ready \d+ \S+/.test(script.output()), 20_000, 'child ready');
  const [, pgid, dir] = /ready (\d+) (\S+)/.exec(script.output()) as RegExpExecArray;
  return { script, pgid: Number(pgid), dir: dir as string };
}

describe('killGroup', () => {
  it('ends every process of a detached group, and the group then reads as gone', async () => {
    const group = spawn('sh', ['-c', 'sleep 60 & sleep 60'], { detached: true, stdio: 'ignore' });
    const pgid = group.pid as number;
    expect(groupAlive(pgid)).toBe(true);
    expect(pidAlive(pgid)).toBe(true);
    killGroup(pgid);
    expect(await waitForGroupGone(pgid)).toBe(true);
    expect(groupAlive(pgid)).toBe(false);
    killGroup(pgid); // a group already gone is no error
  });
});

describe('a process that owns groups and temp dirs', () => {
  for (const scenario of ['exit', 'throw', 'SIGTERM', 'SIGINT'] as const) {
    it(`takes them with it when it ends by ${scenario}`, async () => {
      const { script, pgid, dir } = await owner(scenario);
      expect(groupAlive(pgid)).toBe(true);
      expect(existsSync(dir)).toBe(true);
      script.child.kill(scenario.startsWith('SIG') ? (scenario as NodeJS.Signals) : 'SIGUSR1');
      const ended = await script.exited;
      if (scenario.startsWith('SIG')) expect(ended.signal).toBe(scenario);
      else expect(ended.code).toBe(scenario === 'exit' ? 0 : 1);
      expect(await waitForGroupGone(pgid)).toBe(true);
      expect(existsSync(dir)).toBe(false);
    });
  }
});
