/**
 * Vitest global setup: the suite must leave nothing new in the temp dir that the emulator or
 * its test doubles make (work dirs, fake runtimes, Chromium's singleton dirs). Listed at the
 * start, compared at the end; anything new fails the run (a throwing teardown would not: vitest
 * only logs it, so the exit code is set instead).
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** What the emulator, its runtime and the tests' fake runtime create in the temp dir. */
export const LEFTOVER_PATTERNS = [
  /^remote-browser-emulator-/,
  /^fake-runtime-/,
  /^org\.chromium\.Chromium\./,
];

const matching = (dir: string) =>
  readdirSync(dir).filter((name) => LEFTOVER_PATTERNS.some((pattern) => pattern.test(name)));

export function setup(): () => void {
  const dir = tmpdir();
  const before = new Set(matching(dir));
  return () => {
    const left = matching(dir).filter((name) => !before.has(name));
    if (left.length === 0) return;
    console.error(
      `\nThe suite left ${left.length} new entr${left.length === 1 ? 'y' : 'ies'} in ${dir}: ` +
        `${left.slice(0, 10).join(', ')}${left.length > 10 ? ', ...' : ''}\n` +
        'An emulator that stops and a suite that ends must leave nothing there (issue 11 §5).',
    );
    process.exitCode = 1;
  };
}
