import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll } from 'vitest';

/**
 * Call at a test file's top level: returns `tempDir(prefix)`, which makes a dir under the temp
 * dir that is removed when the file's tests end, so a suite run leaves nothing in `/tmp`.
 */
export function useTempDirs(): (prefix: string) => Promise<string> {
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async (prefix) => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/** How many processes have `entry` (`NAME=value`) in their environment (Linux /proc; 0 elsewhere). */
export function processesWithEnv(entry: string): number {
  let count = 0;
  for (const pid of existsSync('/proc') ? readdirSync('/proc') : []) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry)) count++;
    } catch {}
  }
  return count;
}

/**
 * Removes `dir`, the ledger dir (REMOTE_BROWSER_CACHE_DIR) of child processes, once none of
 * them runs with it any more (at most `withinMs`): the watchdog of a SIGKILLed child appends
 * its last ledger line after the DELETE a test waited for, and a removal meanwhile fails with
 * ENOTEMPTY. The removal itself still retries on that.
 */
export async function removeLedgerDir(dir: string, withinMs = 30_000): Promise<void> {
  const until = Date.now() + withinMs;
  while (processesWithEnv(`REMOTE_BROWSER_CACHE_DIR=${dir}`) > 0 && Date.now() < until) {
    await sleep(100);
  }
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
