#!/usr/bin/env node
// Builds dist/ (tsup) unless it is fresh by the rule the package tests check (dist-staleness.mjs):
// `npm test`, `npm run demo` and `npm run bench` build first, and CI has built already, whose
// type generation alone takes ~30 s on 2 cores. `npm run build` always builds.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { distStaleness } from './dist-staleness.mjs';

const root = join(import.meta.dirname, '..');
const stale = distStaleness(root);
if (!stale) {
  console.error(
    '[build] dist/ is newer than every build input: not rebuilt (`npm run build` forces it)',
  );
  process.exit(0);
}
const built = spawnSync('npx', ['tsup'], { cwd: root, stdio: 'inherit' });
process.exit(built.status ?? 1);
