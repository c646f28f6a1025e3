import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distStaleness, requireFreshDist } from './fresh-dist.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rb-fresh-dist-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes a file whose modification time is `at` seconds after the epoch. */
function file(path: string, at: number): void {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, full.endsWith('.json') ? '{}' : '');
  utimesSync(full, at, at);
}

describe('requireFreshDist', () => {
  it('fails with "dist is older than src" naming the changed file', () => {
    file('dist/index.js', 1000);
    file('dist/test.cjs', 2000);
    file('src/a.ts', 500);
    file('src/deep/b.ts', 1500);
    expect(() => requireFreshDist(root)).toThrow(
      'dist is older than src: src/deep/b.ts changed after dist/index.js was built; run `npm run build` first',
    );
  });

  it('passes when every output is newer than every input', () => {
    file('dist/index.js', 2000);
    file('dist/index.d.ts', 2001);
    file('src/a.ts', 1000);
    file('package.json', 1000);
    expect(distStaleness(root)).toBeUndefined();
  });

  it("wants the declarations package.json's exports name, unless the caller runs JavaScript only", () => {
    const exports = {
      '.': { import: { types: './dist/index.d.ts', default: './dist/index.js' } },
      './test': { require: { types: './dist/test.d.cts', default: './dist/test.cjs' } },
    };
    writeFileSync(join(root, 'package.json'), JSON.stringify({ exports }));
    utimesSync(join(root, 'package.json'), 1000, 1000);
    file('dist/index.js', 2000);
    file('dist/index.d.ts', 2000);
    file('dist/test.cjs', 2000);
    // A build for the demo or the bench (BUILD_TYPES=no) made no declarations.
    expect(distStaleness(root)).toBe(
      'dist/ has no type declarations (./dist/test.d.cts): run `npm run build` first',
    );
    expect(() => requireFreshDist(root)).toThrow(/no type declarations/);
    expect(distStaleness(root, { types: false })).toBeUndefined();
    file('dist/test.d.cts', 2000);
    expect(distStaleness(root)).toBeUndefined();
  });

  it('counts the build config as an input and a missing dist as stale', () => {
    expect(distStaleness(root)).toMatch(/dist\/ is missing/);
    file('dist/index.js', 2000);
    file('tsup.config.ts', 3000);
    expect(distStaleness(root)).toMatch(/tsup\.config\.ts changed after dist\/index\.js/);
  });
});
