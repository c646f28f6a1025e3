/**
 * Chromium runs in its own process group (spawned detached) so that one signal reaches the
 * browser, its zygote and every renderer. This module kills groups and makes sure a dying Node
 * process takes its groups with it.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { cleanupOnSignals, onProcessEnd } from '../../http/process-signals.js';

const liveGroups = new Set<number>();
/** Temp dirs this process made and removes when it dies before removing them itself. */
const ownedDirs = new Set<string>();
let hooksInstalled = false;

function killGroupNow(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: already gone.
  }
}

function killAllGroups(): void {
  for (const pgid of liveGroups) killGroupNow(pgid);
  liveGroups.clear();
}

/** Synchronous on purpose: it runs in `exit` handlers and just before a signal is re-raised. */
function removeOwnedDirs(): void {
  for (const dir of ownedDirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // Nothing more a dying process can do about it.
    }
  }
  ownedDirs.clear();
}

function onExit(): void {
  killAllGroups();
  removeOwnedDirs();
}

/**
 * Ctrl-C and `kill` end Node without running `exit` handlers, and a detached Chromium does not
 * get the terminal's SIGINT, so it would outlive us. Like signal-exit: kill the groups, then if
 * nobody else listens for the signal, remove the dirs (the re-raised signal ends the process
 * without `exit` handlers) and re-raise it so the default behaviour (exit) still happens.
 */
function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // `exit` handlers must be synchronous: process.kill is, and it is all we need.
  // An uncaught exception also runs them, so a crashed emulator leaves no work dir behind.
  onProcessEnd('exit', onExit);
  cleanupOnSignals(['SIGINT', 'SIGTERM', 'SIGHUP'], killAllGroups, {
    beforeReraise: removeOwnedDirs,
  });
}

export function trackGroup(pgid: number): void {
  installHooks();
  liveGroups.add(pgid);
}

/**
 * Removes `dir` if the process exits (or is ended by a signal nobody else handles) before the
 * returned function is called; call it once the dir is removed the normal way. SIGKILL cannot be
 * caught: what it leaves stays.
 */
export function removeOnExit(dir: string): () => void {
  installHooks();
  ownedDirs.add(dir);
  return () => void ownedDirs.delete(dir);
}

export function killGroup(pgid: number): void {
  killGroupNow(pgid);
  liveGroups.delete(pgid);
}

/**
 * Whether any non-zombie process is left in the group. Killed renderers are re-parented to
 * PID 1, which in some containers never reaps them, so `kill(-pgid, 0)` would report zombies as
 * alive forever; on Linux /proc tells the states apart.
 */
export function groupAlive(pgid: number): boolean {
  if (process.platform !== 'linux') {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return false;
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

/** Polls until the group has no live process, or the deadline passes (then resolves false). */
export async function waitForGroupGone(pgid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** OS check of one pid: `kill(pid, 0)` succeeds for a process that still exists. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
