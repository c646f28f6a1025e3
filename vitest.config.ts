import { defineConfig } from 'vitest/config';

// Two projects: `unit` needs nothing but Node (it also runs on Node 24 in CI);
// `e2e` drives real Chromium through the emulator (files named *.e2e.test.ts and the contract suite).
export default defineConfig({
  test: {
    // Fails the run when it leaves emulator work dirs, fake runtimes or Chromium temp dirs behind.
    globalSetup: ['test/global/temp-leftovers.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.e2e.test.ts', 'test/contract/**', 'node_modules/**'],
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e.test.ts', 'test/contract/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Chromium per session on a 2-core machine: keep files from fighting for CPU.
          fileParallelism: false,
        },
      },
    ],
  },
});
