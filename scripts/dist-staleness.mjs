// Whether dist/ was built from the sources as they are now: the rule `npm test` builds by
// (scripts/build-if-stale.mjs) and the tests that run the built package check
// (test/helpers/fresh-dist.ts), so the two cannot disagree. The type declarations count unless
// the caller runs the package without them (`npm run demo`, `npm run bench`: their build skips
// the slow type generation).
import { readdirSync, readFileSync, statSync } from 'node:fs';
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

/** @param {unknown} node @returns {string[]} every "types" path under package.json's exports */
function typesPaths(node) {
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'types' && typeof value === 'string' ? [value] : typesPaths(value),
  );
}

/**
 * Why dist/ under `root` is stale (missing, without the declarations package.json's exports name
 * when `types` are wanted, or an input modified after its oldest output was written), or
 * undefined when it is fresh.
 * @param {string} [root]
 * @param {{ types?: boolean }} [options]
 * @returns {string | undefined}
 */
export function distStaleness(root = process.cwd(), { types = true } = {}) {
  const outputs = files(join(root, 'dist')).filter((f) => /\.(c?js|d\.c?ts)$/.test(f));
  if (outputs.length === 0) return 'dist/ is missing: run `npm run build` first';
  if (types) {
    const manifest = join(root, 'package.json');
    const { exports } = statSync(manifest, { throwIfNoEntry: false })
      ? JSON.parse(readFileSync(manifest, 'utf8'))
      : {};
    const missing = typesPaths(exports).filter(
      (path) => !statSync(join(root, path), { throwIfNoEntry: false }),
    );
    if (missing.length > 0) {
      return `dist/ has no type declarations (${missing[0]}): run \`npm run build\` first`;
    }
  }
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
