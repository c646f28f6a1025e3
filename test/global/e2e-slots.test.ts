import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const MODULE = new URL('./e2e-slots.ts', import.meta.url).pathname;
let dir: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rb-e2e-slots-'));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Another process that takes slots (2 of them), says `held`, and releases when its stdin ends. */
function holder(alone: boolean) {
  const code = `import { takeSlots } from ${JSON.stringify(MODULE)};
const release = await takeSlots({ dir: ${JSON.stringify(dir)}, slots: 2, alone: ${alone}, timeoutMs: 60_000, pollMs: 10 });
process.stdout.write('held\\n');
process.stdin.resume();
process.stdin.on('end', () => { release(); process.stdout.write('released\\n'); });`;
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  let out = '';
  const wakers: Array<() => void> = [];
  proc.stdout!.on('data', (d) => {
    out += d;
    for (const wake of wakers.splice(0)) wake();
  });
  return {
    held: () => out.includes('held'),
    said: async (text: string) => {
      while (!out.includes(text)) await new Promise<void>((r) => wakers.push(r));
    },
    release: () => proc.stdin!.end(),
  };
}

/** Long enough for a waiting child (polling every 10 ms) to have taken a free slot many times over. */
const manyPolls = () => new Promise((r) => setTimeout(r, 1500));

describe('e2e slots between processes', () => {
  it('lets two processes in at once and a third when one of them leaves', async () => {
    const first = holder(false);
    const second = holder(false);
    await Promise.all([first.said('held'), second.said('held')]);
    const third = holder(false);
    await manyPolls();
    expect(third.held()).toBe(false);
    first.release();
    await third.said('held');
    expect(second.held() && third.held()).toBe(true);
  });

  it('runs a process that must be alone by itself, and keeps newcomers out while it waits', async () => {
    const first = holder(false);
    await first.said('held');
    const alone = holder(true);
    await manyPolls();
    expect(alone.held()).toBe(false);
    // A slot is free, but the process waiting to run alone came first.
    const newcomer = holder(false);
    await manyPolls();
    expect(newcomer.held()).toBe(false);
    first.release();
    await alone.said('held');
    await manyPolls();
    expect(newcomer.held()).toBe(false);
    alone.release();
    await newcomer.said('held');
  });
});
