/**
 * The clients' layers (issue 12): no import cycle inside http/, account-api/ and browser-api/
 * (type-only imports included: a type cycle is still two files that cannot be read apart), and
 * http/ imports neither client.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const FOLDERS = ['http', 'account-api', 'browser-api'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)].map(
    (m) => m[1] as string,
  );
  return specs.map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
}

const graph = new Map<string, string[]>();
for (const folder of FOLDERS) {
  for (const file of files(join(SRC, folder))) graph.set(file, importsOf(file));
}

function findCycle(): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done' || !graph.has(file)) return undefined;
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
    if (cycle) return cycle.map((f) => relative(SRC, f));
  }
  return undefined;
}

describe('client layers', () => {
  it('have no import cycle in http/, account-api/ and browser-api/', () => {
    expect(graph.size).toBeGreaterThan(30);
    expect(findCycle()).toBeUndefined();
  });

  it('keep http/ below both clients', () => {
    const upward = [...graph]
      .filter(([file]) => file.startsWith(join(SRC, 'http')))
      .flatMap(([file, deps]) =>
        deps
          .filter((d) => !d.startsWith(join(SRC, 'http')))
          .map((d) => `${relative(SRC, file)} → ${relative(SRC, d)}`),
      )
      .filter((edge) => !edge.endsWith('version.ts'));
    expect(upward).toEqual([]);
  });
});
