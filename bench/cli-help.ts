/**
 * What `remote-browser --help` costs over a bare `node -e 0`, measured interleaved (one of each
 * per round, so a busy machine slows both alike). Reports the median wall time and the median
 * CPU time (user + system, from /usr/bin/time: steadier when the machine is loaded) of each, and
 * the difference. Needs `npm run build`. Not a test.
 * Run: npx tsx bench/cli-help.ts [rounds=20]
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const rounds = Number(process.argv[2] ?? 20);
const bin = join(import.meta.dirname, '../dist/cli.js');
const variants = {
  'node -e 0': ['-e', '0'],
  'remote-browser --help': [bin, '--help'],
} as const;

type Sample = { wall: number; cpu: number };
const samples: Record<string, Sample[]> = { 'node -e 0': [], 'remote-browser --help': [] };

function once(args: readonly string[]): Sample {
  const started = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, ...args], {
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const [user = 0, sys = 0] = (r.stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
  return { wall, cpu: (user + sys) * 1000 };
}

for (let i = 0; i < rounds; i++) {
  for (const [name, args] of Object.entries(variants)) samples[name]?.push(once(args));
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const base = samples['node -e 0'] as Sample[];
const help = samples['remote-browser --help'] as Sample[];
for (const [name, s] of Object.entries(samples)) {
  console.log(
    `${name.padEnd(22)} wall ${median(s.map((x) => x.wall)).toFixed(0)} ms  cpu ${median(s.map((x) => x.cpu)).toFixed(0)} ms`,
  );
}
console.log(
  `--help over node -e 0: wall +${(median(help.map((x) => x.wall)) - median(base.map((x) => x.wall))).toFixed(0)} ms, cpu +${(median(help.map((x) => x.cpu)) - median(base.map((x) => x.cpu))).toFixed(0)} ms (${rounds} rounds, interleaved)`,
);
