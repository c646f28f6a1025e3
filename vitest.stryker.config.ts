import { defineConfig } from 'vitest/config';

// Stryker runs each mutant against unit tests only: the e2e project starts real Chromium per
// session, which would turn a mutation pass of minutes into hours. Only the unit tests of the
// mutated folders (stryker.config.mjs): fewer files to load in every run.
export default defineConfig({
  test: {
    include: [
      'test/http/**/*.test.ts',
      'test/account-api/**/*.test.ts',
      'test/browser-api/**/*.test.ts',
      'test/launch/**/*.test.ts',
      'test/emulator/browser-service/**/*.test.ts',
      // The admin API's reset and close end every session through the lifecycle's endAll().
      'test/emulator/admin.test.ts',
    ],
    // Tests that kill a Node child (signals, SIGKILL, the watchdog) live in *.child.test.ts: they
    // take seconds each and time out under a mutation run's load, and the e2e exit matrix covers
    // those paths. Left out by file, not by title, so an in-process test may name the watchdog.
    exclude: [
      'test/**/*.e2e.test.ts',
      'test/**/*.child.test.ts',
      'test/contract/**',
      'test/package/**',
      'node_modules/**',
    ],
    // The child process of test/launch/shared-pool.test.ts takes seconds on a loaded machine.
    testTimeout: 60_000,
  },
});
