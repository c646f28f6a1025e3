import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireFreshDist } from '../helpers/fresh-dist.js';

// tsup.config.ts: the emulator ships as ESM only, and `require('remote-browser/emulator')` loads
// it through Node's require(esm). A CommonJS user (or the fixture's CommonJS global setup, which
// requires ./emulator.cjs) must get a working emulator, and the same copy an ESM import gets.

/** Runs `code` as a CommonJS script in the repository (where `remote-browser` resolves to itself). */
function runCommonJs(code: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['--input-type=commonjs', '-e', code], {
    cwd: resolve('.'),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('the package from CommonJS', () => {
  beforeAll(() => requireFreshDist());

  it("require('remote-browser/emulator') starts an emulator that the CommonJS client drives, with no warning", () => {
    const run = runCommonJs(`
      const { startEmulator } = require('remote-browser/emulator');
      const { BrowserApi } = require('remote-browser');
      (async () => {
        const emu = await startEmulator({ ffmpegPath: false });
        try {
          const account = await emu.admin.createAccount({});
          const api = new BrowserApi({ baseUrl: emu.url, token: account.token });
          const profile = await api.profiles.create({ name: 'from-cjs' });
          const listed = await api.profiles.list();
          console.log(JSON.stringify({ created: profile.name, listed: listed.map((p) => p.name) }));
        } finally {
          await emu.close();
        }
      })().catch((error) => { console.error(error); process.exit(1); });
    `);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ created: 'from-cjs', listed: ['from-cjs'] });
    // require(esm) of a file inside the package says nothing (no ExperimentalWarning).
    expect(run.stderr).toBe('');
  });

  it('holds one copy of the emulator: the CommonJS entry is the ESM module itself', () => {
    const run = runCommonJs(`
      import('remote-browser/emulator').then((esm) => {
        const cjs = require('remote-browser/emulator');
        console.log(String(cjs.startEmulator === esm.startEmulator));
      });
    `);
    expect(run.stdout.trim(), run.stderr).toBe('true');
    expect(readFileSync(resolve('dist/emulator.cjs'), 'utf8')).toMatch(
      /module\.exports = require\('\.\/emulator\.js'\);/,
    );
  });
});
