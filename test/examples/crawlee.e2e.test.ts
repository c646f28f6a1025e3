import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

// examples/crawlee/ is a folder of its own (Crawlee is a dev dependency of this repo only), so
// examples.e2e.test.ts, which runs the top-level files, does not pick it up: run it here the
// same way, as a user would, with Crawlee's storage kept out of the repo.
// The example's own emulator encodes its sessions' recordings before it exits.
it('examples/crawlee/crawl.ts crawls offline against the emulator and leaves nothing running', {
  timeout: 300_000,
}, () => {
  const storage = mkdtempSync(join(tmpdir(), 'rb-crawlee-example-'));
  const env: NodeJS.ProcessEnv = { ...process.env, CRAWLEE_STORAGE_DIR: storage };
  for (const key of Object.keys(env)) if (key.startsWith('REMOTE_BROWSER_')) delete env[key];
  try {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'examples/crawlee/crawl.ts'], {
      encoding: 'utf8',
      env,
      timeout: 240_000,
    });
    expect(r.status, `crawl.ts failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('crawl done, no session left running');
    expect(r.stderr).toContain('REMOTE_BROWSER_IGNORED_OPTION');
    // The example keeps Crawlee's storage in memory: run as a user runs it, no ./storage appears.
    expect(readdirSync(storage)).toEqual([]);
  } finally {
    rmSync(storage, { recursive: true, force: true });
  }
});
