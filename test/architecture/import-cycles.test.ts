/**
 * No import cycle anywhere in src/ (issue 12): the whole graph, every folder, read with the
 * TypeScript compiler's own import scanner, so `import type`, `export ... from` and dynamic
 * `import()` all count. A type-only cycle is still two files that cannot be read apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** `./x.js` → `./x.ts`, `./dir` → `./dir/index.ts`; anything outside `files` is not followed. */
function resolveSpecifier(from: string, specifier: string, files: ReadonlySet<string>) {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) {
    if (files.has(candidate)) return candidate;
  }
  return undefined;
}

/** Relative imports of each file, as files of the same set. */
function importGraph(texts: ReadonlyMap<string, string>): Map<string, string[]> {
  const files = new Set(texts.keys());
  const graph = new Map<string, string[]>();
  for (const [file, text] of texts) {
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolveSpecifier(file, spec, files))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** One cycle as a path that starts and ends on the same file, or undefined. */
function findCycle(graph: ReadonlyMap<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'open') return [...stack.slice(stack.indexOf(file)), file];
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('import cycles', () => {
  it('src/ has none, type-only imports included', () => {
    const texts = new Map(sourceFiles(SRC).map((file) => [file, readFileSync(file, 'utf8')]));
    const graph = importGraph(texts);
    // The scan must see the graph it judges: every folder, and imports in most files.
    expect([...graph.keys()].some((f) => f.includes('/emulator/runtime/'))).toBe(true);
    expect([...graph.values()].flat().length).toBeGreaterThan(graph.size);
    const cycle = findCycle(graph);
    expect(cycle?.map((file) => relative(SRC, file)).join(' → ')).toBeUndefined();
  });

  it('finds a cycle through a type-only import, a re-export and an index', () => {
    const at = (name: string) => join(SRC, '__cycle__', name);
    const texts = new Map([
      [at('a.ts'), "import type { B } from './b.js';\nexport type A = B;\n"],
      [at('b.ts'), "export * from './c/index.js';\nexport type B = string;\n"],
      [at('c/index.ts'), "export const c = () => import('../a.js');\n"],
      [at('d.ts'), "import { c } from './c';\nexport const d = c;\n"],
    ]);
    const cycle = findCycle(importGraph(texts))?.map((file) => relative(at(''), file));
    expect(cycle).toEqual(['a.ts', 'b.ts', 'c/index.ts', 'a.ts']);
    texts.set(at('c/index.ts'), 'export const c = 1;\n');
    expect(findCycle(importGraph(texts))).toBeUndefined();
  });

  it('resolves every relative import of src/ to a file (none silently dropped)', () => {
    const files = new Set(sourceFiles(SRC));
    const unresolved = [...files].flatMap((file) =>
      ts
        .preProcessFile(readFileSync(file, 'utf8'), true, true)
        .importedFiles.map(({ fileName }) => fileName)
        .filter((spec) => spec.startsWith('.') && !resolveSpecifier(file, spec, files))
        .map((spec) => `${relative(SRC, file)} imports ${spec}`),
    );
    expect(unresolved).toEqual([]);
  });
});
