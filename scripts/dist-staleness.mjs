// Whether dist/ was built from the sources as they are now: the rule `npm test` builds by
// (scripts/build-if-stale.mjs) and the tests that run the built package check
// (test/helpers/fresh-dist.ts), so the two cannot disagree.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Inputs of `npm run build`: a change in any of them makes dist/ stale. */
const INPUTS = ['src', 'tsup.config.ts', 'package.json', 'package-lock.json', 'tsconfig.json'];

/** @param {string} path @returns {string[]} */
function files(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return [];
  if (!stat.isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => files(join(path, name)));
}

/**
 * Why dist/ under `root` is stale (missing, or an input modified after its oldest output was
 * written), or undefined when it is fresh.
 * @param {string} [root]
 * @returns {string | undefined}
 */
export function distStaleness(root = process.cwd()) {
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
