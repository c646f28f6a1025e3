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
  // the parser. One build for both (a second build would double the type generation); their
  // CJS twins, which nothing runs, are left out of the package (package.json `files`). The CLI's hashbang comes from src/cli/bin.ts; the
  // watchdog runs as its own process and imports nothing of the library.
  entry: { ...entries, cli: 'src/cli/bin.ts', watchdog: 'src/launch/watchdog-child.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: entries },
  // No source maps: they were a quarter of the packed size, and without their embedded sources
  // (which had doubled it) they point at src/ files the package does not ship. The output is not
  // minified, so a stack trace already names the real function at a readable line of dist/.
  sourcemap: false,
  clean: true,
  target: 'node20',
  splitting: true,
  shims: true,
  external: ['playwright-core', '@playwright/test', 'puppeteer-core'],
});
