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
    exclude: ['test/**/*.e2e.test.ts', 'test/contract/**', 'test/package/**', 'node_modules/**'],
    // Child-process tests (exit paths) take seconds each on a loaded 2-core machine.
    testTimeout: 60_000,
    // Tests that spawn a Node child (signals, SIGKILL, the watchdog) take seconds each and time out
    // under a mutation run's load; the e2e exit matrix covers those paths.
    testNamePattern: /^(?!.*(SIGKILL|SIGINT|SIGTERM|watchdog)).*$/,
  },
});
