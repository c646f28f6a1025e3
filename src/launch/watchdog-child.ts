/**
 * The detached watchdog process. It holds an IPC channel to its parent; when the channel
 * closes without a clean goodbye (the parent was SIGKILLed, ran out of memory, crashed) it
 * deletes the sessions the parent still held, reconciles the parent's creates that were still
 * on the wire (like a lost create: running sessions created since, unknown to the ledger, with
 * the same targeting), records what it ended in the ledger, then exits. Nearly standalone on
 * purpose: it imports only the pure orphan matcher, so it starts fast and cannot be broken by
 * the parent's state. Credentials arrive in the environment, never in argv (visible to `ps`).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { isOrphanOf, type RunningSession } from './orphan-match.js';

const origin = process.env.REMOTE_BROWSER_WATCHDOG_ORIGIN ?? '';
const token = process.env.REMOTE_BROWSER_WATCHDOG_TOKEN ?? '';
const ledger = process.env.REMOTE_BROWSER_WATCHDOG_LEDGER ?? '';
delete process.env.REMOTE_BROWSER_WATCHDOG_TOKEN;

interface Intent {
  intent: string;
  at: string;
  targeting: Record<string, string>;
}

const sessions = new Set<string>();
const intents = new Map<string, Intent>();
let clean = false;

process.on(
  'message',
  (message: {
    add?: string;
    remove?: string;
    bye?: boolean;
    intent?: Intent;
    settled?: string;
  }) => {
    if (message.add) sessions.add(message.add);
    if (message.remove) sessions.delete(message.remove);
    if (message.intent) intents.set(message.intent.intent, message.intent);
    if (message.settled) intents.delete(message.settled);
    if (message.bye) clean = true;
  },
);

const api = `${origin}/api/v2/browser`;
const headers = { authorization: `Bearer ${token}` };

function record(line: object): void {
  if (!ledger) return;
  try {
    appendFileSync(ledger, `${JSON.stringify({ ...line, at: new Date().toISOString() })}\n`);
  } catch {
    // best effort: the ledger is a safety net
  }
}

async function end(id: string): Promise<void> {
  const res = await fetch(`${api}/sessions/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    headers,
    signal: AbortSignal.timeout(15_000),
  });
  if (res.ok) record({ op: 'ended', id, by: 'watchdog' });
  else if (res.status === 404) record({ op: 'ended', id, by: 'gone' });
}

function knownIds(): Set<string> {
  try {
    return new Set(
      [...readFileSync(ledger, 'utf8').matchAll(/"id":"([^"]+)"/g)].map((m) => m[1] as string),
    );
  } catch {
    return new Set();
  }
}

async function reconcileIntents(): Promise<void> {
  for (const pause of [0, 2000]) {
    if (pause) await new Promise((r) => setTimeout(r, pause));
    const res = await fetch(`${api}/sessions?status=running`, {
      headers,
      signal: AbortSignal.timeout(15_000),
    });
    if (!res.ok) return;
    const running = ((await res.json()) as { data?: RunningSession[] }).data ?? [];
    const known = new Set([...knownIds(), ...sessions]);
    const orphans = running.filter((s) =>
      [...intents.values()].some((i) =>
        isOrphanOf(s, { sinceMs: Date.parse(i.at), targeting: i.targeting }, known),
      ),
    );
    await Promise.allSettled(orphans.map((s) => end(s.id)));
  }
  for (const id of intents.keys()) record({ op: 'create-settled', intent: id });
}

process.on('disconnect', () => {
  if (clean || (sessions.size === 0 && intents.size === 0)) process.exit(0);
  void Promise.allSettled([
    ...[...sessions].map((id) => end(id)),
    intents.size > 0 ? reconcileIntents() : Promise.resolve(),
  ]).finally(() => process.exit(0));
});

process.send?.({ ready: true });
