/**
 * `remote-browser usage`: what this machine's sessions cost, from the local usage journal and
 * the session ledger (no request): sessions and minutes per day and per run, the sessions a
 * timeout ended, and the ones still running.
 */
import type { Command } from 'commander';
import { openEntries } from '../../launch/ledger.js';
import { type JournalEntry, readJournal } from '../../launch/usage-journal.js';
import { act, type Runtime, withJson } from '../kit.js';

type Group = {
  key: string;
  sessions: number;
  minutes: number;
  lostMinutes: number;
  /** Sessions whose minutes are this machine's estimate (the service's record was not read). */
  estimated: number;
};

const round = (n: number) => Math.round(n * 100) / 100;

function groupBy(entries: JournalEntry[], keyOf: (e: JournalEntry) => string): Group[] {
  const groups = new Map<string, Group>();
  for (const e of entries) {
    const key = keyOf(e);
    const g = groups.get(key) ?? { key, sessions: 0, minutes: 0, lostMinutes: 0, estimated: 0 };
    g.sessions++;
    g.minutes += e.minutes;
    g.lostMinutes += e.lostMinutes;
    if (e.estimated) g.estimated++;
    groups.set(key, g);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, minutes: round(g.minutes), lostMinutes: round(g.lostMinutes) }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

export function register(program: Command, rt: Runtime): void {
  withJson(
    program
      .command('usage')
      .description(
        "session minutes of this machine's runs, per day and per run, from the local journal (no request)",
      ),
  ).action(
    act(rt, async (out) => {
      const entries = readJournal();
      const timeouts = (e: JournalEntry) => e.end === 'idle_timeout' || e.end === 'max_duration';
      const report = {
        days: groupBy(entries, (e) => e.endedAt.slice(0, 10)),
        runs: groupBy(entries, (e) => e.run),
        timedOut: entries.filter(timeouts),
        running: openEntries().map((e) => ({ id: e.id, createdAt: e.createdAt, pid: e.pid })),
      };
      out.result(report, () => {
        const columns = ['key', 'sessions', 'minutes', 'lostMinutes', 'estimated'];
        out.line(out.paint.bold('per day'));
        out.table(report.days, columns);
        out.line(out.paint.bold('per run'));
        out.table(report.runs, columns);
        out.line(out.paint.bold('ended by a timeout'));
        out.table(
          report.timedOut.map((e) => ({ id: e.id, end: e.end, minutes: e.minutes, run: e.run })),
          ['id', 'end', 'minutes', 'run'],
        );
        out.line(out.paint.bold('running'));
        out.table(report.running, ['id', 'createdAt', 'pid']);
        out.line(
          "minutes are the service's record where it was read, else this machine's estimate (the estimated column counts those)",
        );
      });
    }),
  );
}
