/**
 * A local ledger of the sessions this machine created, so a later run (or
 * `remote-browser sessions reap`) can end what a crashed run left behind. One JSON line per
 * event, appended with O_APPEND (atomic for lines this short, so processes can share it).
 * It holds ids, origins and pids only: never a token or a cdp_url.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface LedgerEntry {
  id: string;
  origin: string;
  pid: number;
  createdAt: string;
}

type LedgerLine = ({ op: 'created' } & LedgerEntry) | { op: 'ended'; id: string; at: string };

/** `REMOTE_BROWSER_CACHE_DIR`, else the platform's cache dir + `/remote-browser`. */
export function cacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env.REMOTE_BROWSER_CACHE_DIR) return env.REMOTE_BROWSER_CACHE_DIR;
  if (process.platform === 'win32' && env.LOCALAPPDATA)
    return join(env.LOCALAPPDATA, 'remote-browser');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'remote-browser');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'remote-browser');
}

export function ledgerPath(): string {
  return join(cacheDir(), 'sessions.jsonl');
}

function append(line: LedgerLine): void {
  try {
    mkdirSync(cacheDir(), { recursive: true });
    appendFileSync(ledgerPath(), `${JSON.stringify(line)}\n`, { mode: 0o600 });
  } catch {
    // The ledger is a safety net: a read-only home must not fail a launch.
  }
}

export function recordCreated(id: string, origin: string): void {
  append({ op: 'created', id, origin, pid: process.pid, createdAt: new Date().toISOString() });
}

export function recordEnded(id: string): void {
  append({ op: 'ended', id, at: new Date().toISOString() });
}

/** Sessions recorded as created and not (yet) recorded as ended. */
export function openEntries(): LedgerEntry[] {
  let text: string;
  try {
    text = readFileSync(ledgerPath(), 'utf8');
  } catch {
    return [];
  }
  const open = new Map<string, LedgerEntry>();
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    let line: LedgerLine;
    try {
      line = JSON.parse(raw) as LedgerLine;
    } catch {
      continue; // a torn line from a crash mid-write
    }
    if (line.op === 'created')
      open.set(line.id, {
        id: line.id,
        origin: line.origin,
        pid: line.pid,
        createdAt: line.createdAt,
      });
    else if (line.op === 'ended') open.delete(line.id);
  }
  return [...open.values()];
}

/** Ids every process on this machine has recorded, open or not (reconciliation skips them). */
export function knownIds(): Set<string> {
  try {
    const ids = new Set<string>();
    for (const m of readFileSync(ledgerPath(), 'utf8').matchAll(/"id":"([^"]+)"/g))
      ids.add(m[1] as string);
    return ids;
  } catch {
    return new Set();
  }
}

/** Rewrites the ledger with only the open entries (after a reap). */
export function compact(): void {
  const open = openEntries();
  try {
    writeFileSync(
      ledgerPath(),
      open.map((e) => `${JSON.stringify({ op: 'created', ...e })}\n`).join(''),
      { mode: 0o600 },
    );
  } catch {
    // best effort
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
