/**
 * P6 (issue 14): what importing an entry costs over a bare `node -e 0`, as medians of
 * interleaved runs (each round runs every case once, in turn, so machine load hits all alike).
 * Also the cost of undici and zod alone, the two dependencies the entries load at import today.
 * Needs `npm run build` first. Run: `npx tsx bench/import-cost.ts [rounds]` (default 15).
 */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.argv[2] ?? 15);
const GOAL_MS = 25;

const CASES: { name: string; code: string; goal?: number }[] = [
  { name: 'node -e 0', code: '0' },
  { name: "import('remote-browser')", code: "import('remote-browser')", goal: GOAL_MS },
  {
    name: "import('remote-browser/account')",
    code: "import('remote-browser/account')",
    goal: GOAL_MS,
  },
  { name: "import('undici')", code: "import('undici')" },
  { name: "import('zod')", code: "import('zod')" },
];

function once(code: string): number {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, stdio: 'pipe' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`node -e "${code}" failed: ${run.stderr.toString()}`);
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

const samples = CASES.map(() => [] as number[]);
for (const c of CASES) once(c.code); // warm the file cache
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, c] of CASES.entries()) samples[i]?.push(once(c.code));
}

const base = median(samples[0] as number[]);
const rows = CASES.map((c, i) => {
  const xs = samples[i] as number[];
  const m = median(xs);
  const delta = m - base;
  return {
    case: c.name,
    'median ms': m.toFixed(1),
    'spread ms': `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`,
    ratio: `${(m / base).toFixed(2)}×`,
    'delta ms': i === 0 ? '—' : `+${delta.toFixed(1)}`,
    goal: c.goal === undefined ? '—' : `≤ +${c.goal}`,
    result: c.goal === undefined ? '—' : delta <= c.goal ? 'met' : 'MISSED',
  };
});
console.log(`import cost over node -e 0 (${ROUNDS} interleaved rounds, node ${process.version})`);
console.table(rows);
