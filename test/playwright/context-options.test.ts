import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { applyContextOptions } from '../../src/playwright/context-options.js';

// A storageState given as a path is read from disk when applied (node:fs/promises taken at the
// call since issue 14's P6, not imported with the Playwright entry). The context is a recorder
// of the calls applyStorageState makes on Playwright's BrowserContext; the e2e drop-in tests
// cover the real context's behaviour.
function recordingContext() {
  const calls: { cookies: unknown[]; initScripts: unknown[] } = { cookies: [], initScripts: [] };
  const context = {
    addCookies: async (cookies: unknown[]) => {
      calls.cookies.push(...cookies);
    },
    addInitScript: async (_script: unknown, arg: unknown) => {
      calls.initScripts.push(arg);
    },
    pages: () => [],
    on: () => context,
  };
  return { context: context as unknown as BrowserContext, calls };
}

describe('applyContextOptions storageState', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('reads a storageState file and applies its cookies and localStorage origins', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rb-storage-'));
    const file = join(dir, 'state.json');
    const cookie = { name: 'sid', value: 'v1', domain: 'example.com', path: '/' };
    const origin = { origin: 'https://example.com', localStorage: [{ name: 'k', value: 'v' }] };
    writeFileSync(file, JSON.stringify({ cookies: [cookie], origins: [origin] }));
    const { context, calls } = recordingContext();
    await applyContextOptions(context, { storageState: file });
    expect(calls.cookies).toEqual([cookie]);
    expect(calls.initScripts).toEqual([[origin]]);
  });

  it('a storageState path that does not exist rejects with the file error', async () => {
    const { context } = recordingContext();
    await expect(
      applyContextOptions(context, { storageState: join(tmpdir(), 'rb-no-such-state.json') }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
