#!/usr/bin/env node
// Builds dist/ (tsup) unless it is fresh by the rule the package tests check (dist-staleness.mjs):
// `npm test`, `npm run demo` and `npm run bench` build first, and CI has built already. With
// `--no-types` (the demo and the bench run the package's JavaScript only) a stale dist/ is built
// without its type declarations: their generation is nearly all of a build (about 70 s of 75 on
// 2 cores), and a fresh clone's `npm run demo` should not wait for it. A later `npm test` or
// `npm run build` makes them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { distStaleness } from './dist-staleness.mjs';

const root = join(import.meta.dirname, '..');
const types = !process.argv.includes('--no-types');
const stale = distStaleness(root, { types });
if (!stale) {
  console.error(
    '[build] dist/ is newer than every build input: not rebuilt (`npm run build` forces it)',
  );
  process.exit(0);
}
const built = spawnSync('npx', ['tsup'], {
  cwd: root,
  stdio: 'inherit',
  env: types ? process.env : { ...process.env, BUILD_TYPES: 'no' },
});
process.exit(built.status ?? 1);
