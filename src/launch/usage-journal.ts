/**
 * The local usage journal beside the session ledger (`<cache dir>/usage.jsonl`): one JSON line
 * per ended session of every process on this machine (its minutes, how it ended, its run), so
 * `remote-browser usage` can say what days and runs cost after the processes are gone. A
 * session settled later (the service's record read) gets a second line; the last one counts.
 * Appended with O_APPEND like the ledger; ids, times and reasons only, never a secret. Once it
 * grows past COMPACT_PAST_BYTES it is cut to its newest lines, half that size, so a cut is rare.
 */
import { nodeFs, nodePath } from '../http/node-builtins.js';
import { cacheDir } from './ledger.js';
import type { SessionUsage } from './usage.js';

export interface JournalEntry {
  id: string;
  /** The Playwright Test run (its directory's name) or, outside one, `pid-<pid>`. */
  run: string;
  startedAt: string;
  endedAt: string;
  minutes: number;
  lostMinutes: number;
  end: SessionUsage['end'];
  estimated: boolean;
}

export const COMPACT_PAST_BYTES = 1024 * 1024;

export function journalPath(): string {
  return nodePath().join(cacheDir(), 'usage.jsonl');
}

/** Appends an ended session's line; never throws (the journal is a report, not a guard). */
export function journalEnded(session: SessionUsage, run: string, path = journalPath()): void {
  if (session.end === null || session.endedAt === null) return;
  const entry: JournalEntry = {
    id: session.id,
    run,
    startedAt: session.startedAt,
    endedAt: session.endedAt,
    minutes: session.minutes,
    lostMinutes: session.lostMinutes,
    end: session.end,
    estimated: session.estimated,
  };
  try {
    const fs = nodeFs();
    fs.mkdirSync(nodePath().dirname(path), { recursive: true, mode: 0o700 });
    fs.appendFileSync(path, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    if (fs.statSync(path).size > COMPACT_PAST_BYTES) {
      const kept: string[] = [];
      let bytes = 0;
      for (const line of readLines(path).reverse()) {
        bytes += Buffer.byteLength(line) + 1;
        if (bytes > COMPACT_PAST_BYTES / 2) break;
        kept.unshift(line);
      }
      fs.writeFileSync(`${path}.${process.pid}.tmp`, kept.map((l) => `${l}\n`).join(''));
      fs.renameSync(`${path}.${process.pid}.tmp`, path);
    }
  } catch {
    // a read-only home must not fail a session's end
  }
}

function readLines(path: string): string[] {
  try {
    return nodeFs()
      .readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim());
  } catch {
    return [];
  }
}

/** Every session in the journal, its last line each (a settled record replaces the estimate). */
export function readJournal(path = journalPath()): JournalEntry[] {
  const byId = new Map<string, JournalEntry>();
  for (const line of readLines(path)) {
    try {
      const entry = JSON.parse(line) as JournalEntry;
      byId.delete(entry.id);
      byId.set(entry.id, entry);
    } catch {
      // a line torn by a crash mid-write
    }
  }
  return [...byId.values()];
}
