/**
 * Vitest global setup: the suite must leave nothing in the machine's temp dir.
 * - The run gets a temp dir of its own (`TMPDIR`, inherited by the test workers, the emulators'
 *   Chromiums and every child a test spawns): what third-party tools leave there when a test
 *   kills their process on purpose (Playwright's `playwright-artifacts-*` of a killed runner) goes
 *   with it at the end.
 * - Before it goes, it must hold nothing the emulator or its test doubles make (work dirs, fake
 *   runtimes, Chromium's singleton dirs): anything such fails the run and the dir is kept for a
 *   look. The machine's temp dir is checked the same way, listed at the start and compared at
 *   the end. A throwing teardown would not fail the run (vitest only logs it), so the exit code
 *   is set instead.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the emulator, its runtime and the tests' fake runtime create in the temp dir. */
export const LEFTOVER_PATTERNS = [
  /^remote-browser-emulator-/,
  /^fake-runtime-/,
  /^org\.chromium\.Chromium\./,
];

const matching = (dir: string) =>
  readdirSync(dir).filter((name) => LEFTOVER_PATTERNS.some((pattern) => pattern.test(name)));

/** Set while a run's own temp dir is in place: each project runs the global setup again. */
const RUN_TMP_ENV = 'RB_TEST_RUN_TMP';

export function setup(): () => void {
  if (process.env[RUN_TMP_ENV] !== undefined) return () => {};
  const savedTmpdir = process.env.TMPDIR;
  const machineTmp = tmpdir();
  const before = new Set(matching(machineTmp));
  const runTmp = mkdtempSync(join(machineTmp, 'rb-test-run-'));
  process.env.TMPDIR = runTmp;
  process.env[RUN_TMP_ENV] = runTmp;
  return () => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
    delete process.env[RUN_TMP_ENV];
    const left = [
      ...matching(machineTmp).filter((name) => !before.has(name)),
      ...matching(runTmp).map((name) => join(runTmp, name)),
    ];
    if (left.length === 0) {
      try {
        rmSync(runTmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
      } catch (error) {
        // A killed child's Chromium may still be writing its last files: not the product's leak.
        console.error(
          `\nCould not remove the run's temp dir ${runTmp}: ${(error as Error).message}`,
        );
      }
      return;
    }
    console.error(
      `\nThe suite left ${left.length} new entr${left.length === 1 ? 'y' : 'ies'} in the temp dir ` +
        `(${machineTmp}, and the run's own ${runTmp}, kept): ` +
        `${left.slice(0, 10).join(', ')}${left.length > 10 ? ', ...' : ''}\n` +
        'An emulator that stops and a suite that ends must leave nothing there (issue 11 §5).',
    );
    process.exitCode = 1;
  };
}
