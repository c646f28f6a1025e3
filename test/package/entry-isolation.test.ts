import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireFreshDist } from '../helpers/fresh-dist.js';

// DESIGN: importing one entry must not load what another entry needs. Walks the static import
// graph of each built entry (ESM and CJS) in dist/; dynamic import() is allowed, because it
// loads only when called (e.g. the Playwright adapter loads playwright-core on launch).
const DIST = resolve('dist');
const LIBS = ['playwright-core', 'puppeteer-core', '@playwright/test'];
const STATIC = [
  /\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\brequire\(\s*["']([^"']+)["']\s*\)/g,
];

function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const pattern of STATIC) {
      for (const m of text.matchAll(pattern)) {
        const spec = m[1] as string;
        if (spec.startsWith('.')) visit(join(dirname(file), spec));
        else bare.add(spec);
      }
    }
  };
  visit(join(DIST, entry));
  return bare;
}

const forbidden: Record<string, string[]> = {
  index: LIBS,
  account: LIBS,
  emulator: LIBS,
  playwright: ['puppeteer-core', '@playwright/test'],
  puppeteer: ['playwright-core', '@playwright/test'],
  test: ['puppeteer-core'],
};

describe('entry isolation (built package)', () => {
  beforeAll(() => requireFreshDist());

  for (const [entry, libs] of Object.entries(forbidden)) {
    for (const ext of ['js', 'cjs']) {
      it(`remote-browser${entry === 'index' ? '' : `/${entry}`} (${ext}) statically loads none of ${libs.join(', ')}`, () => {
        const loaded = [...staticGraph(`${entry}.${ext}`)].filter((spec) =>
          libs.some((lib) => spec === lib || spec.startsWith(`${lib}/`)),
        );
        expect(loaded).toEqual([]);
      });
    }
  }

  // Controls: the scan does see imports that are really there.
  it('sees the static @playwright/test import the test entry needs', () => {
    expect([...staticGraph('test.js')]).toContain('@playwright/test');
  });

  it('sees that the Playwright entry loads playwright-core dynamically, on launch', () => {
    expect(readChunks('playwright.js')).toMatch(/import\(\s*["']playwright-core["']\s*\)/);
  });
});

// Issue 14 (P6): undici and zod cost more to load than the rest of an entry, so the core and
// account entries load them on first use (a request, a schema's first parse), not at import.
// Checked at run time in a fresh Node: both land in the CJS module cache however they load.
function loadedAtImport(entry: string, after = ''): string[] {
  const code =
    `import { createRequire } from 'node:module';\n` +
    `const mod = await import(${JSON.stringify(entry)});\n${after}\n` +
    `for (const file of Object.keys(createRequire(import.meta.url).cache)) console.error('CJS ' + file);`;
  // An ESM import is seen by bench/'s resolve hook (LOADED <lib>), a require by the CJS cache.
  const run = spawnSync(
    process.execPath,
    ['--import', './bench/peer-register.mjs', '--input-type=module', '-e', code],
    { cwd: resolve('.'), encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  return ['undici', 'zod'].filter(
    (lib) => run.stderr.includes(`LOADED ${lib}\n`) || run.stderr.includes(`/node_modules/${lib}/`),
  );
}

describe('runtime dependencies load on first use (built package)', () => {
  beforeAll(() => requireFreshDist());

  for (const entry of [
    'remote-browser',
    'remote-browser/account',
    'remote-browser/playwright',
    'remote-browser/puppeteer',
  ]) {
    it(`${entry} loads neither undici nor zod at import`, () => {
      expect(loadedAtImport(entry)).toEqual([]);
    });
  }

  // Control for the launch entries: bad options still get the typed error, zod loading then.
  it("remote-browser/playwright's option schema loads zod on first use and still refuses a bad option", () => {
    expect(
      loadedAtImport(
        'remote-browser/playwright',
        'const e = await mod.launchRemote({ sessionTimeout: -1 }).catch((e) => e);\n' +
          'if (!/sessionTimeout/.test(String(e?.message))) { console.log(String(e)); process.exit(3); }',
      ),
    ).toEqual(['zod']);
  });

  // Control: the check does see zod once a schema is used, and the schema works.
  it('a schema of remote-browser loads zod on its first parse, and parses', () => {
    expect(
      loadedAtImport(
        'remote-browser',
        "if (mod.SessionStatusSchema.parse('running') !== 'running') process.exit(3);",
      ),
    ).toEqual(['zod']);
  });
});

// Issue 14 (P6): Node built-ins that only a call needs are taken at that call
// (src/http/node-builtins.ts): crypto, child_process and the stream modules loaded dozens of
// Node's internal modules at import, half of what importing the Puppeteer entry cost. Checked
// in a fresh Node by the modules it has loaded (process.moduleLoadList), after the import and
// again after a call that needs them.
const CALL_TIME_BUILTINS = ['crypto', 'child_process', 'stream/promises', 'net'];

function builtinsLoaded(entry: string, after = '', env: Record<string, string> = {}): string[] {
  const code =
    `const mod = await import(${JSON.stringify(entry)});\n${after}\n` +
    'console.log(JSON.stringify(process.moduleLoadList));';
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: resolve('.'),
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (run.status !== 0) throw new Error(run.stderr);
  const loaded = new Set(JSON.parse(run.stdout) as string[]);
  return CALL_TIME_BUILTINS.filter((name) => loaded.has(`NativeModule ${name}`));
}

describe('Node built-ins a call needs load at that call (built package)', () => {
  beforeAll(() => requireFreshDist());

  for (const entry of ['remote-browser', 'remote-browser/playwright', 'remote-browser/puppeteer']) {
    it(`${entry} loads none of ${CALL_TIME_BUILTINS.join(', ')} at import`, () => {
      expect(builtinsLoaded(entry)).toEqual([]);
    });
  }

  // Control: the check sees them once a call uses them (the ledger's intent id needs crypto).
  it('remote-browser/puppeteer loads node:crypto when a launch records its create intent', () => {
    // The intent goes to the ledger: a cache dir of the test's own, removed after.
    const cache = mkdtempSync(join(tmpdir(), 'rb-builtins-'));
    try {
      expect(
        builtinsLoaded(
          'remote-browser/puppeteer',
          // Nothing listens on port 9 of loopback: the create fails after its intent is recorded.
          "await mod.launchRemote({ baseUrl: 'http://127.0.0.1:9', token: 't', proxyPassword: 'p', preflight: false, timeout: 2000 }).catch(() => {});",
          { REMOTE_BROWSER_CACHE_DIR: cache },
        ),
      ).toContain('crypto');
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

// Issue 14 (P6): a static import of a built-in builds its whole namespace at import even when
// it is already loaded: `node:crypto` for webhook signing cost the account entry ~7 ms, and
// `node:fs/promises` for a storage-state file ~2 ms of the Playwright entry. The entries take
// every built-in through src/http/node-builtins.ts at the call instead, so their static graph
// (ESM chunks, and each CJS bundle) names none.
describe('entries import no Node built-in statically (built package)', () => {
  beforeAll(() => requireFreshDist());

  for (const entry of ['index', 'account', 'playwright', 'puppeteer']) {
    for (const ext of ['js', 'cjs']) {
      it(`${entry}.${ext} names no built-in in its static import graph`, () => {
        expect([...staticGraph(`${entry}.${ext}`)].filter((spec) => isBuiltin(spec))).toEqual([]);
      });
    }
  }

  // Control: the scan recognises a built-in where one is imported statically.
  it('sees the static built-in imports of the emulator entry', () => {
    expect([...staticGraph('emulator.js')].filter((spec) => isBuiltin(spec))).toContain('crypto');
  });
});

function readChunks(entry: string): string {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    out.push(text);
    for (const m of text.matchAll(/\bfrom\s*["'](\.[^"']+)["']/g))
      visit(join(dirname(file), m[1] as string));
  };
  visit(join(DIST, entry));
  return out.join('\n');
}
