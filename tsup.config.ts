import { defineConfig, type Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * The CLI loads the emulator lazily from the `remote-browser/emulator` entry beside it instead of
 * bundling a second copy of it.
 */
const emulatorFromItsEntry: Plugin = {
  name: 'emulator-from-its-entry',
  setup(build) {
    build.onResolve({ filter: /\/emulator\/index\.js$/ }, (args) =>
      args.importer.includes('/src/cli/') ? { path: './emulator.js', external: true } : undefined,
    );
  },
};

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
    // Chunks, so `remote-browser --help` loads the parser and not every command's clients.
    splitting: true,
    esbuildPlugins: [emulatorFromItsEntry],
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    external: ['playwright-core', '@playwright/test', 'puppeteer-core'],
  },
]);
