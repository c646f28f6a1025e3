import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      playwright: 'src/playwright/index.ts',
      puppeteer: 'src/puppeteer/index.ts',
      test: 'src/fixture/index.ts',
      account: 'src/account-api/index.ts',
      emulator: 'src/emulator/index.ts',
      // Playwright loads global hooks by path: defineRemoteConfig() points at these two.
      'test-global-setup': 'src/fixture/hook-entries/global-setup.ts',
      'test-global-teardown': 'src/fixture/hook-entries/global-teardown.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    splitting: true,
    shims: true,
    external: ['playwright-core', '@playwright/test', 'puppeteer-core'],
  },
  {
    // The watchdog runs as its own process: a standalone file beside the entries.
    entry: { cli: 'src/cli/bin.ts', watchdog: 'src/launch/watchdog-child.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    external: ['playwright-core', '@playwright/test', 'puppeteer-core'],
  },
]);
