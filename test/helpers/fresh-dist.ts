/**
 * Tests that run the built package (the fixture's inner Playwright runs, the examples, the
 * package checks) would otherwise pass or fail on whatever `dist/` an earlier build left behind.
 * They call `requireFreshDist()` first: it fails with "dist is older than src" when a source file
 * changed after the last build, instead of testing the old code.
 */
import { distStaleness } from '../../scripts/dist-staleness.mjs';

export { distStaleness };

/** Throws when dist/ is missing or older than any build input. */
export function requireFreshDist(root = process.cwd()): void {
  const problem = distStaleness(root);
  if (problem) throw new Error(problem);
}
