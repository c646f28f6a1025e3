import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  // ...and the usage reporter it adds, loaded by path like them.
  'test-usage-reporter': 'src/fixture/hook-entries/usage-reporter.ts',
};

export default defineConfig({
  // The CLI and the watchdog are built with the entries, so their code lives in the same shared
  // chunks (one copy of the emulator, the clients and redact's secret registry) instead of a
  // second bundle; the commands they load lazily are chunks of their own, so `--help` loads only
  // the parser. One build for both formats (a second build would double the type generation);
  // what the CommonJS side does not need is removed after it (onSuccess). The CLI's hashbang
  // comes from src/cli/bin.ts; the watchdog runs as its own process and imports nothing of the
  // library.
  // The sandbox's forwarder runs inside each session's sandbox, where only its own file is bound:
  // it imports node built-ins only, so its one file is the whole program.
  entry: {
    ...entries,
    cli: 'src/cli/bin.ts',
    watchdog: 'src/launch/watchdog-child.ts',
    'sandbox-forwarder': 'src/emulator/runtime/forwarder-main.ts',
  },
  format: ['esm', 'cjs'],
  // `BUILD_TYPES=no`: JavaScript only, for what runs the package without its types (the demo and
  // the bench, through scripts/build-if-stale.mjs --no-types).
  dts: process.env.BUILD_TYPES === 'no' ? false : { entry: entries },
  // No source maps: they were a quarter of the packed size, and without their embedded sources
  // (which had doubled it) they point at src/ files the package does not ship. The output is not
  // minified, so a stack trace already names the real function at a readable line of dist/.
  sourcemap: false,
  clean: true,
  target: 'node20',
  splitting: true,
  shims: true,
  external: ['playwright-core', '@playwright/test', 'puppeteer-core'],
  async onSuccess() {
    writeFileSync('dist/emulator.cjs', EMULATOR_CJS);
    pruneCommonJs();
  },
});

/**
 * `require('remote-browser/emulator')` loads the ESM build through Node's require(esm), which
 * every Node the package supports has (>=20.19, package.json `engines`): the emulator, a third
 * of the code, ships once instead of twice, and a CommonJS process that starts it (a Playwright
 * config compiled to CommonJS, the fixture's global setup) runs the same copy as an ESM one.
 */
const EMULATOR_CJS = `'use strict';
// The emulator ships as ESM only; Node >=20.19 loads it here through require(esm).
module.exports = require('./emulator.js');
`;

/**
 * Deletes every .cjs file no CommonJS entry reaches: the emulator's CommonJS chunks (the shim
 * replaced them), the CLI's and the watchdog's CommonJS twins (both run as ESM only).
 */
function pruneCommonJs(): void {
  const reached = new Set<string>();
  const queue = Object.keys(entries).map((name) => `${name}.cjs`);
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    const code = readFileSync(`dist/${file}`, 'utf8');
    for (const [, required] of code.matchAll(/require\(["']\.\/([\w.-]+\.cjs)["']\)/g)) {
      queue.push(required!);
    }
  }
  for (const file of readdirSync('dist')) {
    if (file.endsWith('.cjs') && !reached.has(file)) rmSync(`dist/${file}`);
  }
}
