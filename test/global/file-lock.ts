/**
 * A lock between processes on one machine: a file holding its holder's pid, created in one step
 * (link() fails when it exists). A holder that died without releasing (a worker killed on a
 * timeout) is taken over, so a crash cannot stall the processes waiting behind it.
 */
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The pid written in the lock file, or undefined when there is none (or it is unreadable). */
export function lockHolder(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock for this process if it is free or its holder is dead; true when taken. */
export function tryLock(path: string): boolean {
  mkdirSync(dirname(path), { recursive: true });
  const mine = `${path}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        linkSync(mine, path);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = lockHolder(path);
      if (holder === process.pid) return true;
      // link() publishes the file with its pid already in it: no pid means it was just
      // released, so try once more. A dead holder: take over.
      if (holder !== undefined && alive(holder)) return false;
      if (holder !== undefined) rmSync(path, { force: true });
    }
    return false;
  } finally {
    rmSync(mine, { force: true });
  }
}

/** Waits (polling every `pollMs`) until the lock is this process's. */
export async function lock(path: string, timeoutMs: number, pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!tryLock(path)) {
    if (Date.now() > deadline) {
      throw new Error(`${path} still held by pid ${lockHolder(path)} after ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Releases the lock if this process holds it. */
export function unlock(path: string): void {
  if (lockHolder(path) === process.pid) rmSync(path, { force: true });
}
