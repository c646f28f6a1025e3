/**
 * P6's breakdown, not a row of the table: what each entry's own files cost to load, timed inside
 * the process (after `import('node:path')` has started the ESM loader), so that Node's start and
 * the host's process-spawn noise (±15 ms a run here) drop out. Each round imports every case once,
 * each in a fresh process; prints the medians, and each entry's files and bytes. Needs
 * `npm run build`. Run: npx tsx bench/entry-inprocess.ts [rounds=21]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, quantile } from './stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const ROUNDS = Number(process.argv[2] ?? 21);

const CASES: { name: string; specifier: string; file?: string }[] = [
  { name: 'an empty ES module (the floor)', specifier: 'data:text/javascript,export default 0' },
  { name: 'remote-browser', specifier: 'remote-browser', file: 'index.js' },
  { name: 'remote-browser/account', specifier: 'remote-browser/account', file: 'account.js' },
  {
    name: 'remote-browser/playwright',
    specifier: 'remote-browser/playwright',
    file: 'playwright.js',
  },
  { name: 'remote-browser/puppeteer', specifier: 'remote-browser/puppeteer', file: 'puppeteer.js' },
];

/** The dist files an entry loads at import: itself and the chunks it imports statically. */
function filesOf(entry: string): string[] {
  const seen = new Set([entry]);
  const todo = [entry];
  for (let file = todo.pop(); file; file = todo.pop()) {
    const code = readFileSync(join(DIST, file), 'utf8');
    for (const m of code.matchAll(
      /(?:^|[\s;])(?:import|export)\s*(?:[^'"();]*?\bfrom\s*)?["']\.\/([^"']+)["']/g,
    )) {
      const dep = m[1] as string;
      if (!seen.has(dep)) {
        seen.add(dep);
        todo.push(dep);
      }
    }
  }
  return [...seen];
}

function importMs(specifier: string): number {
  const code =
    "await import('node:path'); const t = process.hrtime.bigint(); " +
    `await import(${JSON.stringify(specifier)}); ` +
    'process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e6));';
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`import(${specifier}): ${run.stderr.trim()}`);
  return Number(run.stdout);
}

const samples = CASES.map(() => [] as number[]);
for (const c of CASES) importMs(c.specifier); // warm-up: the disk cache
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, c] of CASES.entries()) samples[i]?.push(importMs(c.specifier));
}
const floor = median(samples[0] as number[]);
console.log(`in-process import time, ${ROUNDS} interleaved rounds, node ${process.version}`);
console.table(
  CASES.map((c, i) => {
    const xs = samples[i] as number[];
    const files = c.file ? filesOf(c.file) : [];
    const bytes = files.reduce((sum, f) => sum + statSync(join(DIST, f)).size, 0);
    return {
      entry: c.name,
      'median ms': median(xs).toFixed(1),
      'p25–p75 ms': `${quantile(xs, 0.25).toFixed(1)}–${quantile(xs, 0.75).toFixed(1)}`,
      'over the floor': i === 0 ? '—' : `+${(median(xs) - floor).toFixed(1)}`,
      files: c.file ? files.length : '—',
      kB: c.file ? (bytes / 1024).toFixed(0) : '—',
    };
  }),
);
