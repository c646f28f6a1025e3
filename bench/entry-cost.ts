/**
 * P6: what importing each entry costs over a bare `node -e 0`, and `remote-browser --help`,
 * measured interleaved (one of each per round, so a busy machine slows all alike), from the
 * built package (`dist/`, as users get it). Then, in one more run each with module hooks, which
 * peer libraries (and runtime dependencies) each loads: none for the core, account and CLI.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, quantile } from './stats.js';
import type { Row } from './table.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// 31, not 11: on a busy 2-core host one process start varies by tens of ms, more than the
// goal's margin, and 11 rounds left medians that moved by ±15 ms from one run to the next.
const ROUNDS = 31;
const PEERS = ['playwright-core', 'puppeteer-core', '@playwright/test'];

interface Variant {
  name: string;
  args: string[];
  goalMs: number;
  /** Peer libraries this variant must not load. */
  forbidden: string[];
  /** A control: printed for comparison, with no verdict. */
  control?: boolean;
}

const importOf = (entry: string) => [
  '--input-type=module',
  '-e',
  `await import(${JSON.stringify(entry)})`,
];

const VARIANTS: Variant[] = [
  {
    // What any ESM entry pays over `node -e 0` before its own code: the ESM loader's start.
    name: 'import() of an empty ES module (control: the floor)',
    args: importOf('data:text/javascript,export default 0'),
    goalMs: 25,
    forbidden: [],
    control: true,
  },
  {
    name: "import('remote-browser')",
    args: importOf('remote-browser'),
    goalMs: 25,
    forbidden: PEERS,
  },
  {
    name: "import('remote-browser/account')",
    args: importOf('remote-browser/account'),
    goalMs: 25,
    forbidden: PEERS,
  },
  {
    name: "import('remote-browser/playwright')",
    args: importOf('remote-browser/playwright'),
    goalMs: 25,
    forbidden: ['puppeteer-core'],
  },
  {
    name: "import('remote-browser/puppeteer')",
    args: importOf('remote-browser/puppeteer'),
    goalMs: 25,
    forbidden: ['playwright-core', '@playwright/test'],
  },
  {
    name: "import('remote-browser/test')",
    args: importOf('remote-browser/test'),
    goalMs: 25,
    forbidden: ['puppeteer-core'],
  },
  {
    name: "import('remote-browser/emulator')",
    args: importOf('remote-browser/emulator'),
    goalMs: 25,
    forbidden: PEERS,
  },
  { name: 'remote-browser --help', args: ['dist/cli.js', '--help'], goalMs: 60, forbidden: PEERS },
];

function wallMs(args: string[]): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  if (run.status !== 0) throw new Error(`node ${args.join(' ')}: ${run.stderr.toString().trim()}`);
  return performance.now() - started;
}

function loadedBy(args: string[]): string[] {
  const run = spawnSync(process.execPath, ['--import', './bench/peer-register.mjs', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return [...new Set([...run.stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1] as string))];
}

export async function entryCostRows(): Promise<Row[]> {
  const base: number[] = [];
  const samples = new Map<string, number[]>(VARIANTS.map((v) => [v.name, []]));
  wallMs(['-e', '0']); // warm-up: the disk cache
  for (const variant of VARIANTS) wallMs(variant.args);
  for (let round = 0; round < ROUNDS; round++) {
    base.push(wallMs(['-e', '0']));
    for (const variant of VARIANTS) samples.get(variant.name)?.push(wallMs(variant.args));
  }
  const baseMs = median(base);
  return VARIANTS.map((variant) => {
    const times = samples.get(variant.name) ?? [];
    const extra = median(times) - baseMs;
    const loaded = loadedBy(variant.args);
    const bad = loaded.filter((name) => variant.forbidden.includes(name));
    const goal = variant.control
      ? 'control, no goal'
      : `≤ +${variant.goalMs} ms; loads no ` +
        (variant.forbidden === PEERS ? 'peer library' : variant.forbidden.join(' or '));
    return {
      id: 'P6',
      what: `${variant.name} over node -e 0`,
      goal,
      measured:
        `${extra < 0 ? '−' : '+'}${Math.abs(extra).toFixed(0)} ms (${median(times).toFixed(0)} vs ${baseMs.toFixed(0)} ms; ` +
        `p25–p75 ${quantile(times, 0.25).toFixed(0)}–${quantile(times, 0.75).toFixed(0)} ms, n=${ROUNDS}); ` +
        `loads: ${loaded.length > 0 ? loaded.join(', ') : 'none of the watched'}`,
      met: variant.control ? undefined : extra <= variant.goalMs && bad.length === 0,
    };
  });
}
