import { defineConfig } from 'tsup';

// The package's entries (ESM and CJS, with types).
const entries = {
  index: 'src/index.ts',
  playwright: 'src/playwright/index.ts',
  puppeteer: 'src/puppeteer/index.ts',
  test: 'src/fixture/index.ts',
  account: 'src/account-api/index.ts',
  emulator: 'src/emulator/index.ts',
  // Playwright loads global hooks by path: defineRemoteConfig() points at these two.
  'test-global-setup': 'src/fixture/hook-entries/global-setup.ts',
  'test-global-teardown': 'src/fixture/hook-entries/global-teardown.ts',
};

export default defineConfig({
  // The CLI and the watchdog are built with the entries, so their code lives in the same shared
  // chunks (one copy of the emulator, the clients and redact's secret registry) instead of a
  // second bundle; the commands they load lazily are chunks of their own, so `--help` loads only
  // the parser. One build for both: a CJS twin of these two is a few kB, a second build
  // would double the type generation. The CLI's hashbang comes from src/cli/bin.ts; the
  // watchdog runs as its own process and imports nothing of the library.
  entry: { ...entries, cli: 'src/cli/bin.ts', watchdog: 'src/launch/watchdog-child.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: entries },
  // Maps keep stack traces pointing at src/ lines, but not the sources themselves: embedding
  // them more than doubled the packed size, for code nobody steps through from node_modules.
  sourcemap: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
  clean: true,
  target: 'node20',
  splitting: true,
  shims: true,
  external: ['playwright-core', '@playwright/test', 'puppeteer-core'],
});
