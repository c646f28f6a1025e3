import { readFileSync } from 'node:fs';
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
