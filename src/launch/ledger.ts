/**
 * A local ledger of the sessions this machine created, so a later run (or
 * `remote-browser sessions reap`) can end what a crashed run left behind. One JSON line per
 * event, appended with O_APPEND (atomic for lines this short, so processes can share it).
 * It holds ids, origins, pids, times and targeting only: never a token or a cdp_url.
 *
 * A session's state is its last line: `running` (created), `deleting` (a DELETE was sent and
 * its outcome never recorded: a host's quick exit cut it off), `delete-failed` (the DELETE
 * failed: still running, still this machine's job), or ended (`by` says who ended it: `close`,
 * `watchdog`, `reap`, `kept` when the user kept it running, `gone` when it had already ended).
 * A create in flight is an intent (`creating`) written before the request, with its targeting
 * and time, settled when the create answers; an intent left open by a dead process is
 * reconciled like a lost create.
 *
 * It stays small: compact() rewrites it as its open entries and open intents plus a bounded
 * tail (the last TAIL_ENDS `ended` lines, so a session ended or kept a moment ago stays known to
 * the orphan search of another process), on every reap and whenever an append finds the file
 * COMPACT_PAST_BYTES past its size after the last compaction. Its size is therefore at most that
 * of its open entries and intents, plus the tail (about 25 kB), plus COMPACT_PAST_BYTES.
 */
import { nodeFs, nodeOs, nodePath } from '../http/node-builtins.js';

export type OpenState = 'running' | 'deleting' | 'delete-failed';
export type EndedBy = 'close' | 'watchdog' | 'reap' | 'kept' | 'gone';

export interface LedgerEntry {
  id: string;
  origin: string;
  pid: number;
  createdAt: string;
  state: OpenState;
}

/** A create that was sent and has not answered (yet). */
export interface CreateIntent {
  intent: string;
  origin: string;
  pid: number;
  /** When the request left, ISO 8601: sessions created before it cannot be its own. */
  at: string;
  /** The targeting fields of the request (no secret: the proxy password is never here). */
  targeting: Record<string, string>;
}

type LedgerLine =
  | ({ op: 'created' } & Omit<LedgerEntry, 'state'>)
  | { op: 'ended'; id: string; at: string; by?: EndedBy }
  | { op: 'deleting' | 'delete-failed'; id: string; at: string }
  | ({ op: 'creating' } & CreateIntent)
  | { op: 'create-settled'; intent: string; at: string };

/** `REMOTE_BROWSER_CACHE_DIR`, else the platform's cache dir + `/remote-browser`. */
export function cacheDir(env: Record<string, string | undefined> = process.env): string {
  const { join } = nodePath();
  const homedir = () => nodeOs().homedir();
  if (env.REMOTE_BROWSER_CACHE_DIR) return env.REMOTE_BROWSER_CACHE_DIR;
  if (process.platform === 'win32' && env.LOCALAPPDATA)
    return join(env.LOCALAPPDATA, 'remote-browser');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'remote-browser');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'remote-browser');
}

export function ledgerPath(): string {
  return nodePath().join(cacheDir(), 'sessions.jsonl');
}

/** Compaction starts once an append finds the file past this size. */
export const COMPACT_PAST_BYTES = 64 * 1024;
/** How many `ended` lines a compaction keeps after the open entries (the bounded tail). */
export const TAIL_ENDS = 256;

/** The size each ledger had after this process compacted it: many open entries do not compact it on every append. */
const compactedSize = new Map<string, number>();

/** Appends one line; `path`: another ledger than this process's (the watchdog child's parent's). */
function append(line: LedgerLine, path = ledgerPath()): void {
  try {
    const fs = nodeFs();
    fs.mkdirSync(nodePath().dirname(path), { recursive: true, mode: 0o700 });
    fs.appendFileSync(path, `${JSON.stringify(line)}\n`, { mode: 0o600 });
    if (fs.statSync(path).size > (compactedSize.get(path) ?? 0) + COMPACT_PAST_BYTES) compact(path);
  } catch {
    // The ledger is a safety net: a read-only home must not fail a launch.
  }
}

const now = () => new Date().toISOString();

export function recordCreated(id: string, origin: string): void {
  append({ op: 'created', id, origin, pid: process.pid, createdAt: now() });
}

export function recordEnded(id: string, by: EndedBy = 'close', path?: string): void {
  append({ op: 'ended', id, at: now(), by }, path);
}

export function recordDeleting(id: string): void {
  append({ op: 'deleting', id, at: now() });
}

export function recordDeleteFailed(id: string): void {
  append({ op: 'delete-failed', id, at: now() });
}

export function recordCreating(intent: CreateIntent): void {
  append({ op: 'creating', ...intent });
}

export function recordCreateSettled(intent: string, path?: string): void {
  append({ op: 'create-settled', intent, at: now() }, path);
}

function parse(text: string): LedgerLine[] {
  const lines: LedgerLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      lines.push(JSON.parse(raw) as LedgerLine);
    } catch {
      // a torn line from a crash mid-write
    }
  }
  return lines;
}

function readText(path = ledgerPath()): string {
  try {
    return nodeFs().readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

interface Replayed {
  open: Map<string, LedgerEntry>;
  intents: Map<string, CreateIntent>;
  /** The `ended` lines, oldest first, one per id (its last). */
  ends: Map<string, LedgerLine & { op: 'ended' }>;
}

function replay(lines: LedgerLine[] = parse(readText())): Replayed {
  const open = new Map<string, LedgerEntry>();
  const intents = new Map<string, CreateIntent>();
  const ends = new Map<string, LedgerLine & { op: 'ended' }>();
  for (const line of lines) {
    if (line.op === 'created') {
      const { op: _op, ...entry } = line;
      open.set(line.id, { ...entry, state: 'running' });
    } else if (line.op === 'ended') {
      open.delete(line.id);
      ends.delete(line.id);
      ends.set(line.id, line);
    } else if (line.op === 'deleting' || line.op === 'delete-failed') {
      const entry = open.get(line.id);
      if (entry) entry.state = line.op;
    } else if (line.op === 'creating') {
      const { op: _op, ...intent } = line;
      intents.set(line.intent, intent);
    } else if (line.op === 'create-settled') {
      intents.delete(line.intent);
    }
  }
  return { open, intents, ends };
}

/** Sessions recorded as created and not (yet) recorded as ended, with their state. */
export function openEntries(): LedgerEntry[] {
  return [...replay().open.values()];
}

/** Creates that were sent and never settled (the process died, or it is still waiting). */
export function openIntents(path?: string): CreateIntent[] {
  return [...replay(parse(readText(path))).intents.values()];
}

/**
 * The creates a live process on this machine still has on the wire to the service `origin`,
 * but for `except` (those the caller reconciles): findOrphans' `contested`. A session one of
 * them may have made is that process's to record in a moment, not an orphan to end.
 */
export function contestedIntents(except: ReadonlySet<string>, origin: string, path?: string) {
  const contested = (i: CreateIntent) => i.origin === origin && !except.has(i.intent);
  return openIntents(path).filter((i) => contested(i) && isProcessAlive(i.pid));
}

/** Ids every process on this machine has recorded, open or not (reconciliation skips them). */
export function knownIds(path?: string): Set<string> {
  return new Set(Array.from(readText(path).matchAll(/"id":"([^"]+)"/g), (m) => m[1] as string));
}

/**
 * Rewrites the ledger as its open entries (with their state), its open intents and the last
 * TAIL_ENDS `ended` lines. Written to a temporary file and renamed over the ledger; lines
 * another process appended meanwhile are carried over first, so only an append in the moment
 * between that read and the rename can be lost.
 */
export function compact(path = ledgerPath()): void {
  try {
    const fs = nodeFs();
    const text = readText(path);
    const { open, intents, ends } = replay(parse(text));
    const lines: LedgerLine[] = [];
    for (const { state, ...entry } of open.values()) {
      lines.push({ op: 'created', ...entry });
      if (state !== 'running') lines.push({ op: state, id: entry.id, at: now() });
    }
    for (const intent of intents.values()) lines.push({ op: 'creating', ...intent });
    lines.push(...[...ends.values()].slice(-TAIL_ENDS));
    const temp = `${path}.${process.pid}.tmp`;
    fs.mkdirSync(nodePath().dirname(path), { recursive: true, mode: 0o700 });
    const compacted = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    fs.writeFileSync(temp, compacted, { mode: 0o600 });
    const since = readText(path);
    if (since.length > text.length && since.startsWith(text))
      fs.appendFileSync(temp, since.slice(text.length));
    fs.renameSync(temp, path);
    compactedSize.set(path, Buffer.byteLength(compacted));
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

/** Clock skew tolerated between this machine and the service when matching created_at. */
export const SKEW_MS = 60_000;

export const TARGETING_KEYS = [
  'country',
  'region',
  'city',
  'zip',
  'isp',
  'protocol',
  'connection_type',
  'session_type',
  'filter_mode',
  'profile_id',
] as const;

/** The targeting fields of a create body, as strings (nothing else: never the proxy password). */
export function targetingOf(body: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of TARGETING_KEYS) {
    const value = (body as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) out[key] = String(value);
  }
  return out;
}

/** A running session as the service lists it, as far as the orphan search reads it. */
export interface RunningSession {
  id: string;
  created_at: string;
  config?: Record<string, unknown> | undefined;
}

export function sameTargeting(
  config: Record<string, unknown> | undefined,
  targeting: Record<string, string>,
): boolean {
  if (!config) return true;
  for (const [key, want] of Object.entries(targeting)) {
    const got = config[key];
    if (got !== undefined && got !== null && String(got).toLowerCase() !== want.toLowerCase())
      return false;
  }
  return true;
}

/**
 * The orphan search of every path (a lost create, the exit hooks, the watchdog child, `reap`):
 * the running sessions one of `creates` (sent at `at` with `targeting`) may have left: created
 * since (with SKEW_MS of clock skew), unknown to every process here (`known`), same targeting.
 * One that a live process's create still on the wire (`contested`) may have made is left: it
 * may be that process's, not yet recorded (another test's browser). Pure.
 */
export function findOrphans<S extends RunningSession>(
  running: readonly S[],
  creates: readonly Pick<CreateIntent, 'at' | 'targeting'>[],
  known: ReadonlySet<string>,
  contested: readonly Pick<CreateIntent, 'at' | 'targeting'>[] = [],
): S[] {
  const mayBeOf = (session: S) => (create: Pick<CreateIntent, 'at' | 'targeting'>) =>
    Date.parse(session.created_at) >= Date.parse(create.at) - SKEW_MS &&
    sameTargeting(session.config, create.targeting);
  return running.filter(
    (session) =>
      !known.has(session.id) && creates.some(mayBeOf(session)) && !contested.some(mayBeOf(session)),
  );
}
