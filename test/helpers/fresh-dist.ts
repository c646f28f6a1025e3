/**
 * Tests that run the built package (the fixture's inner Playwright runs, the examples, the
 * package checks) would otherwise pass or fail on whatever `dist/` an earlier build left behind.
 * They call `requireFreshDist()` first: it fails with "dist is older than src" when a source file
 * changed after the last build, instead of testing the old code.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Inputs of `npm run build`: a change in any of them makes dist/ stale. */
const INPUTS = ['src', 'tsup.config.ts', 'package.json', 'tsconfig.json'];

function files(path: string): string[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return [];
  if (!stat.isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => files(join(path, name)));
}

/** The newest input and the oldest output, or why there is nothing to compare. */
export function distStaleness(root = process.cwd()): string | undefined {
  const outputs = files(join(root, 'dist')).filter((f) => /\.(c?js|d\.c?ts)$/.test(f));
  if (outputs.length === 0) return 'dist/ is missing: run `npm run build` first';
  const oldest = outputs.reduce((a, b) => (statSync(a).mtimeMs <= statSync(b).mtimeMs ? a : b));
  const builtAt = statSync(oldest).mtimeMs;
  const newer = INPUTS.flatMap((input) => files(join(root, input))).filter(
    (f) => statSync(f).mtimeMs > builtAt,
  );
  if (newer.length === 0) return undefined;
  const shown = newer.slice(0, 5).map((f) => relative(root, f));
  return (
    `dist is older than src: ${shown.join(', ')}${newer.length > 5 ? ` and ${newer.length - 5} more` : ''} ` +
    `changed after ${relative(root, oldest)} was built; run \`npm run build\` first`
  );
}

/** Throws when dist/ is missing or older than any build input. */
export function requireFreshDist(root = process.cwd()): void {
  const problem = distStaleness(root);
  if (problem) throw new Error(problem);
}
