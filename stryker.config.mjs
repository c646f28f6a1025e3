// @ts-check
/**
 * Mutation testing (`npm run test:mutation`, not part of CI): the files whose guarantees the unit
 * tests must pin down. Incremental: a rerun only tests mutants whose code or covering tests changed
 * (reports/stryker-incremental.json); `npm run test:mutation -- --force` ignores it.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.stryker.config.ts', related: true },
  mutate: [
    'src/http/**/*.ts',
    '!src/http/index.ts',
    'src/launch/**/*.ts',
    '!src/launch/index.ts',
    'src/account-api/webhook-signature.ts',
    'src/emulator/browser-service/session-lifecycle.ts',
    'src/emulator/browser-service/sessions.ts',
  ],
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants) rerun every test for each mutant: 11% of the mutants,
  // 80% of the time. They are reported as ignored, not counted as killed.
  ignoreStatic: true,
  checkers: [],
  // Two shared cores: one test runner keeps the machine usable while it runs.
  concurrency: 1,
  timeoutMS: 20_000,
  // The first, unmutated run measures every test; on a loaded machine it takes minutes.
  dryRunTimeoutMinutes: 30,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.tmp/stryker',
  // The sandbox needs sources, tests and configs, not builds, caches or reports.
  ignorePatterns: [
    'dist',
    '.tmp',
    'coverage',
    'test-results',
    'playwright-report',
    '.emulator-data',
    'demo-output',
    'reports',
  ],
  thresholds: { high: 90, low: 80, break: null },
};
