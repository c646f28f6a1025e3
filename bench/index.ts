/**
 * `npm run bench`: every performance goal, measured side by side in one run against the
 * emulator with its network model, printed as one table (goal, figure, met or missed).
 * Not a test: nothing here fails the build; the table is the result.
 *
 *   npm run bench                 all rows (about 8 minutes on 2 cores)
 *   npm run bench -- --only P1,P5 some rows (P10: isolation 'remote' vs 'none'; P11: page.goto vs a raw browser; P12: the usage reporter)
 *   npm run bench -- --pairs 5    fewer interleaved pairs for P1/P2 (default 11)
 *   npm run bench -- --only P1 --target de/be/berlin   P1/P2 on sessions targeted there (geo derives)
 *
 * Machine and date are printed with the table, so a pasted table says where it came from.
 */
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { downloadRows } from './download.js';
import { entryCostRows } from './entry-cost.js';
import { isolationRows } from './isolation.js';
import { launchRows } from './launch-rows.js';
import { navigationRows } from './navigation.js';
import { pollingRows } from './polling.js';
import { prewarmRows } from './prewarm.js';
import { remoteDownloadRows } from './remote-download.js';
import { slotQueueRows } from './slot-queue.js';
import { type Row, renderTable } from './table.js';
import { tunnelRows } from './tunnel.js';
import { usageReporterRows } from './usage-reporter.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    pairs: { type: 'string', default: '11' },
    target: { type: 'string' },
  },
});
const only = values.only ? new Set(values.only.toUpperCase().split(',')) : undefined;
// Row ids compared in upper case on both sides: `--only P8b` (or p8b) selects P8b.
const wanted = (...ids: string[]) => !only || ids.some((id) => only.has(id.toUpperCase()));
const pairs = Number(values.pairs);
const [country, region, city] = values.target?.split('/') ?? [];
const target = country
  ? { country, ...(region ? { region } : {}), ...(city ? { city } : {}) }
  : undefined;

const sections: Array<{ ids: string[]; run: () => Promise<Row[]> }> = [
  { ids: ['P6'], run: () => entryCostRows() },
  {
    ids: ['P1', 'P2'],
    run: () => launchRows({ pairs, rtts: [0, 50, 100], ...(target ? { target } : {}) }),
  },
  { ids: ['P3'], run: () => slotQueueRows() },
  { ids: ['P4'], run: () => pollingRows() },
  { ids: ['P5'], run: () => downloadRows() },
  { ids: ['P7'], run: () => prewarmRows((line) => process.stderr.write(`\n  ${line}`)) },
  { ids: ['P8', 'P8b'], run: () => tunnelRows() },
  { ids: ['P9'], run: () => remoteDownloadRows() },
  { ids: ['P10'], run: () => isolationRows(pairs) },
  { ids: ['P11'], run: () => navigationRows() },
  { ids: ['P12'], run: () => usageReporterRows() },
];

const rows: Row[] = [];
const started = Date.now();
for (const section of sections) {
  if (!wanted(...section.ids)) continue;
  const t0 = Date.now();
  process.stderr.write(`bench: ${section.ids.join('/')} ...`);
  try {
    rows.push(...(await section.run()));
  } catch (error) {
    for (const id of section.ids) {
      rows.push({
        id,
        what: '(failed to run)',
        goal: '',
        measured: (error as Error).stack?.split('\n').slice(0, 2).join(' ') ?? String(error),
        met: undefined,
      });
    }
  }
  process.stderr.write(` ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
}

const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
console.log(
  `remote-browser bench, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ` +
    `${cpus().length} × ${cpu}, ${(totalmem() / 1024 ** 3).toFixed(0)} GB, ` +
    `${((Date.now() - started) / 1000).toFixed(0)} s`,
);
console.log(renderTable(rows));
const missed = rows.filter((row) => row.met === false).map((row) => `${row.id} ${row.what}`);
if (missed.length > 0) console.log(`\nmissed: ${missed.length} of ${rows.length} rows`);
// Chromium processes, keep-alive pools and the emulators' timers are all closed by now; exit
// explicitly anyway, so a library handle left open cannot hold the table's process.
process.exit(0);
