#!/usr/bin/env node
// Counts issue 38's numbers on the code as it is: the emulator's lines and its files over 300
// lines, which files have a test file, the import cycles between its folders (from the real
// import graph, type-only and dynamic imports included, read with TypeScript's own parser), the
// WebSocket libraries the project imports, and the places an emulator error answer is written.
// Usage: node scripts/emulator-audit.mjs [--check]  (--check exits 1 when a goal is missed).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

const ROOT = 'src/emulator';
const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(join(dir, e.name))
      : /\.(m?ts|mjs)$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
const emulator = files(ROOT).filter((f) => f.endsWith('.ts'));
const lines = (f) => readFileSync(f, 'utf8').split('\n').length - 1;

// Lines and size.
const total = emulator.reduce((n, f) => n + lines(f), 0);
const big = emulator.filter((f) => lines(f) > 300);

// Test files: src/emulator/X/Y.ts has test/emulator/X/Y.test.ts or Y.e2e.test.ts.
const testOf = (f) => {
  const base = join('test', relative('src', f)).replace(/\.ts$/, '');
  return [`${base}.test.ts`, `${base}.e2e.test.ts`].find(existsSync);
};
const untested = emulator.filter((f) => !testOf(f));

// The import graph: every relative import (static, type-only, re-export, dynamic) resolved to a file.
const importsOf = (f) =>
  ts
    .preProcessFile(readFileSync(f, 'utf8'), true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => normalize(join(dirname(f), name)).replace(/\.js$/, '.ts'))
    .filter((target) => target.startsWith(`${ROOT}/`));
/** A folder of the emulator, or the file itself for the files at its root. */
const unit = (f) => {
  const rest = relative(ROOT, f);
  return rest.includes('/') ? `${rest.split('/')[0]}/` : rest;
};
const edges = new Map(); // unit -> Map(unit -> [file -> file])
for (const f of emulator) {
  for (const target of importsOf(f)) {
    const [a, b] = [unit(f), unit(target)];
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Map());
    const out = edges.get(a);
    out.set(b, [...(out.get(b) ?? []), `${relative(ROOT, f)} -> ${relative(ROOT, target)}`]);
  }
}
// Tarjan's strongly connected components: a component of more than one unit is a cycle.
const cycles = [];
{
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) cycles.push(scc);
    }
  };
  for (const v of new Set(emulator.map(unit))) if (!idx.has(v)) visit(v);
}

// The rows of docs/architecture.md's emulator section: a unit imports only from its row or
// below, and two units of one row import nothing of each other.
const ROWS = [
  ['start.ts', 'cli-entry.ts', 'index.ts'],
  ['admin.ts', 'admin-client.ts'],
  ['browser-service/'],
  ['options.ts', 'option-issues.ts'],
  ['account-service/', 'network/'],
  ['runtime/'],
  ['server/', 'data/', 'clock.ts'],
];
const rowOf = (u) => ROWS.findIndex((row) => row.includes(u));
/** A lower row, or the same row between two files at the root (`start.ts` -> `index.ts`). */
const allowed = (a, b) =>
  rowOf(a) >= 0 &&
  rowOf(b) >= 0 &&
  (rowOf(b) > rowOf(a) || (rowOf(b) === rowOf(a) && !a.endsWith('/') && !b.endsWith('/')));
const upward = [...edges].flatMap(([a, out]) =>
  [...out].filter(([b]) => !allowed(a, b)).flatMap(([, via]) => via),
);

// WebSocket libraries: the modules any project file takes a WebSocket from.
const projectFiles = ['src', 'test', 'bench', 'scripts', 'examples']
  .filter(existsSync)
  .flatMap(files);
const wsLibraries = new Map();
for (const f of projectFiles) {
  const text = readFileSync(f, 'utf8');
  const found = [
    ...text.matchAll(
      /import\s+(?:type\s+)?\{[^}]*\bWebSocket(?:Server)?\b[^}]*\}\s*from\s*'([^']+)'/g,
    ),
    ...text.matchAll(/import\s+(?:type\s+)?\w+\s+from\s*'(ws)'/g),
    ...text.matchAll(/import\('(ws)'\)/g),
  ].map((m) => m[1]);
  for (const lib of found) wsLibraries.set(lib, [...(wsLibraries.get(lib) ?? []), f]);
}

// Error answers: an emulator error is an HttpError answered by errorReply (server/http-error.ts);
// a JSON error body written anywhere else is a second path.
const errorWriters = emulator.flatMap((f) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
    .filter(({ line }) => /sendJson\(|writeHead\(\s*(4|5)\d\d/.test(line))
    .map(({ at }) => at),
);

const report = {
  'emulator lines': total,
  'emulator files': emulator.length,
  'files over 300 lines': big.map((f) => `${f} (${lines(f)})`),
  'files with a test file': emulator.length - untested.length,
  'files without one': untested.length,
  'import cycles between emulator folders': cycles.length,
  cycles: cycles.map((scc) => scc.flatMap((a) => scc.flatMap((b) => edges.get(a)?.get(b) ?? []))),
  'imports against the documented rows': upward,
  'folder imports (from -> to: count)': [...edges].flatMap(([a, out]) =>
    [...out].map(([b, via]) => `${a} -> ${b}: ${via.length}`),
  ),
  'WebSocket libraries': Object.fromEntries([...wsLibraries].map(([k, v]) => [k, v.length])),
  'error bodies written outside errorReply': errorWriters,
};
if (process.argv.includes('--untested')) report['untested files'] = untested;
console.log(JSON.stringify(report, null, 2));
if (process.argv.includes('--check')) {
  const missed = [
    big.length > 0 && 'a file over 300 lines',
    cycles.length > 0 && 'an import cycle between emulator folders',
    upward.length > 0 && 'an import against the rows of docs/architecture.md',
    wsLibraries.size !== 1 && 'more than one WebSocket library',
    errorWriters.length > 0 && 'an error answer written outside errorReply',
  ].filter(Boolean);
  if (missed.length > 0) {
    console.error(`emulator-audit: ${missed.join(', ')}`);
    process.exit(1);
  }
}
