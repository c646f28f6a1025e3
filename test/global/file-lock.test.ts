import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lock, lockHolder, tryLock, unlock } from './file-lock.js';

const MODULE = new URL('./file-lock.ts', import.meta.url).pathname;
let dir: string;
let path: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rb-file-lock-'));
  path = join(dir, 'sub', 'a.lock');
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Another process running `body` with tryLock/unlock imported; its stdout is collected. */
function child(body: string) {
  const code = `import { tryLock, unlock } from ${JSON.stringify(MODULE)};\n${body}`;
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  let out = '';
  const lines: Array<() => void> = [];
  proc.stdout!.on('data', (d) => {
    out += d;
    for (const wake of lines.splice(0)) wake();
  });
  const closed = new Promise<void>((resolve) => proc.on('close', () => resolve()));
  const said = async (text: string) => {
    while (!out.includes(text)) await new Promise<void>((r) => lines.push(r));
  };
  return { proc, closed, said, out: () => out };
}

const TRY = `process.stdout.write(String(tryLock(${'PATH'})));`;
const tryOnce = () => child(TRY.replace('PATH', JSON.stringify(path)));
/** A process that takes the lock, says so, and releases it when its stdin ends. */
const holdUntilStdinEnds = () =>
  child(`if (!tryLock(${JSON.stringify(path)})) process.exit(3);
process.stdout.write('held\\n');
process.stdin.resume();
process.stdin.on('end', () => { unlock(${JSON.stringify(path)}); process.stdout.write('released\\n'); });`);

describe('file lock between processes', () => {
  it('is held by one process until it releases it; a dead holder is taken over', async () => {
    expect(tryLock(path)).toBe(true);
    expect(lockHolder(path)).toBe(process.pid);
    const other = tryOnce();
    await other.closed;
    expect(other.out()).toBe('false');
    unlock(path);
    expect(lockHolder(path)).toBeUndefined();
    // The child takes it and exits without releasing it, as a worker killed on a timeout would.
    const taker = tryOnce();
    await taker.closed;
    expect(taker.out()).toBe('true');
    expect(lockHolder(path)).toBe(taker.proc.pid);
    expect(tryLock(path)).toBe(true);
    expect(lockHolder(path)).toBe(process.pid);
  });

  it('is not released by a process that does not hold it', () => {
    expect(tryLock(path)).toBe(true);
    writeFileSync(path, String(process.ppid));
    unlock(path);
    expect(lockHolder(path)).toBe(process.ppid);
  });

  it('lock() waits while a live holder has it: gives up after its timeout naming the holder, or takes it once released', async () => {
    const holder = holdUntilStdinEnds();
    await holder.said('held');
    await expect(lock(path, 50, 10)).rejects.toThrow(`still held by pid ${holder.proc.pid}`);
    const events: string[] = [];
    const taking = lock(path, 60_000, 10).then(() => events.push('taken'));
    // Many polls later the holder still has it.
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual([]);
    expect(lockHolder(path)).toBe(holder.proc.pid);
    holder.proc.stdin!.end();
    await taking;
    expect(events).toEqual(['taken']);
    expect(lockHolder(path)).toBe(process.pid);
    unlock(path);
  });
});
