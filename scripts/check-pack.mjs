#!/usr/bin/env node
// What publint and attw do not check about the packed package, run by `npm run pkg:check` after
// `npm run build`: only what a user needs is shipped (under 470 kB packed), the licence is in it,
// no source maps, each module is bundled once per format (the CLI shares the library's chunks
// instead of holding a second copy of the emulator), every bin starts with a hashbang, and each
// entry's public surface in both formats (the root has the library-agnostic launch functions,
// `/account` a guard for each of its error classes, `/emulator` no CLI internals).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const [pack] = JSON.parse(
  execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }),
);
const paths = pack.files.map((f) => f.path);
const problems = [];

// The docs stay in the repository, where the README's links and the errors' "see" links point.
const allowed = (path) =>
  path.startsWith('dist/') || ['package.json', 'README.md', 'LICENSE'].includes(path);
for (const path of paths.filter((p) => !allowed(p))) problems.push(`ships ${path}`);
if (!paths.includes('LICENSE')) problems.push('LICENSE is not in the package');

// No source maps (tsup.config.ts says why), and no CJS twin of the CLI or the watchdog: both
// run as dist/*.js only.
for (const path of paths.filter((p) => p.endsWith('.map'))) problems.push(`ships ${path}`);
for (const path of ['dist/cli.cjs', 'dist/watchdog.cjs'].filter((p) => paths.includes(p))) {
  problems.push(`ships ${path}, which nothing runs`);
}
// Under 470 kB without minifying (stack traces point at readable lines of dist/): no maps, no
// docs, and the emulator in one format (ESM; its .cjs is a require(esm) shim, tsup.config.ts).
// The bound was 400 kB until the typed CDP layer, the WebSocket page scripts, geo, usage and the
// sandbox's forwarder (issues 34-38) added 71 kB of source; their data comes from dependencies,
// never bundled. 450 -> 470 kB: the CLI's page actions and doctor --geo over CDP, the one CDP
// connection they and the emulator runtime share, target routing and the signal module (+10 kB).
const MAX_PACKED = 470_000;
if (pack.size >= MAX_PACKED) problems.push(`packs to ${pack.size} bytes, over ${MAX_PACKED}`);

// One definition per output format: a second one means a second bundle of the same module.
// The emulator and the CLI's own code (runEmulatorForeground) ship in ESM only.
const definitions = [
  ['async function startEmulator(', ['.js']],
  ['async function runEmulatorForeground(', ['.js']],
  ['function redact(', ['.js', '.cjs']],
];
for (const [definition, formats] of definitions) {
  for (const ext of formats) {
    const holders = paths.filter(
      (p) => p.endsWith(ext) && readFileSync(p, 'utf8').includes(definition),
    );
    if (holders.length !== 1) {
      problems.push(`${definition}…) is defined in ${holders.length} ${ext} files: ${holders}`);
    }
  }
}
for (const path of paths.filter((p) => p.endsWith('.cjs'))) {
  if (readFileSync(path, 'utf8').includes('async function startEmulator(')) {
    problems.push(`${path} holds a CommonJS copy of the emulator (dist/emulator.cjs is a shim)`);
  }
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
for (const [name, file] of Object.entries(pkg.bin ?? {})) {
  if (!readFileSync(file, 'utf8').startsWith('#!/usr/bin/env node\n')) {
    problems.push(`bin ${name} (${file}) does not start with a node hashbang`);
  }
}

const require = createRequire(import.meta.url);
const AGNOSTIC = [
  'reapSessions',
  'installExitHooks',
  'startWatchdog',
  'ensureProfile',
  'sessionOf',
];
for (const [format, load] of [
  ['esm', (entry) => import(resolve('dist', `${entry}.js`))],
  ['cjs', async (entry) => require(resolve('dist', `${entry}.cjs`))],
]) {
  const root = await load('index');
  for (const name of AGNOSTIC.filter((n) => typeof root[n] !== 'function')) {
    problems.push(`remote-browser (${format}) does not export ${name}`);
  }
  const account = await load('account');
  const classes = Object.keys(account).filter((n) => /^[A-Z]\w*Error$/.test(n));
  const guards = Object.keys(account).filter((n) => /^is[A-Z]\w*Error$/.test(n));
  for (const name of classes.filter((n) => !guards.includes(`is${n}`))) {
    problems.push(`remote-browser/account (${format}) exports ${name} without is${name}`);
  }
  for (const guard of guards.filter((g) => !classes.includes(g.slice(2)))) {
    problems.push(`remote-browser/account (${format}) exports ${guard} without its class`);
  }
  if ('runEmulatorForeground' in (await load('emulator'))) {
    problems.push(`remote-browser/emulator (${format}) exports the CLI's runEmulatorForeground`);
  }
}

const kB = (n) => `${(n / 1000).toFixed(1)} kB`;
if (problems.length > 0) {
  console.error(`check-pack: ${problems.length} problem(s):\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(
  `check-pack: ${paths.length} files, ${kB(pack.size)} packed, ${kB(pack.unpackedSize)} unpacked: ok`,
);
