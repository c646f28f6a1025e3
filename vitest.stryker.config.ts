import { defineConfig } from 'vitest/config';

// Stryker runs each mutant against the `unit` project only: the e2e project starts real Chromium
// per session, which would turn a mutation pass of minutes into hours. Keep this include/exclude
// in step with the `unit` project in vitest.config.ts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts', 'test/contract/**', 'test/package/**', 'node_modules/**'],
    testTimeout: 20_000,
  },
});
