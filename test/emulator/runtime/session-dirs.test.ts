/**
 * A session's dirs on the host, made in a real work dir: where they are, what removing them
 * leaves (a saved profile stays), and the spare sandbox booted on such dirs (a fake sandbox
 * records what it was asked to boot).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionSandbox } from '../../../src/emulator/runtime/isolated-network.js';
import type { BootedSandbox } from '../../../src/emulator/runtime/sandbox-process.js';
import { prepareProfile, spareSandbox } from '../../../src/emulator/runtime/session-dirs.js';

let workDir: string;
beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'sdirs-'));
});
afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('prepareProfile', () => {
  it("makes a throwaway profile and Chromium's temp dir, and removes both", async () => {
    const profile = await prepareProfile(undefined, { workDir });
    expect(profile.throwawayProfile).toBe(true);
    expect(profile.sessionDir).toMatch(new RegExp(`^${workDir}/s-[\\w-]{12}$`));
    expect(profile.userDataDir).toBe(join(profile.sessionDir, 'profile'));
    expect(existsSync(profile.userDataDir)).toBe(true);
    expect(profile.tempDir && existsSync(profile.tempDir)).toBe(true);
    await profile.removeProfile();
    expect(existsSync(profile.userDataDir)).toBe(false);
    expect(existsSync(profile.tempDir!)).toBe(false);
  });

  it('makes nothing once the work dir is gone (a launch after shutdown): it fails instead', async () => {
    await rm(workDir, { recursive: true });
    await expect(prepareProfile(undefined, { workDir })).rejects.toThrow(/ENOENT/);
    expect(existsSync(workDir)).toBe(false);
  });

  it('uses a saved profile where it is, and keeps it when the session ends', async () => {
    const kept = join(workDir, 'kept', 'p1');
    await mkdir(kept, { recursive: true });
    const profile = await prepareProfile(kept, { workDir });
    expect(profile.throwawayProfile).toBe(false);
    expect(profile.userDataDir).toBe(kept);
    await profile.removeProfile();
    expect(existsSync(kept)).toBe(true);
    expect(existsSync(profile.tempDir!)).toBe(false);
  });
});

describe('spareSandbox', () => {
  it("boots the runtime's Chromium on a throwaway profile's dirs, and removes them all when unused", async () => {
    const boots: string[][] = [];
    const sandbox: SessionSandbox = {
      boot(executable, tempDir, userDataDir): BootedSandbox {
        boots.push([executable, tempDir, userDataDir]);
        return { run: () => ({}) as never, alive: () => true, kill: async () => {} };
      },
      isolate: () => Promise.reject(new Error('not here')),
    };
    const spare = spareSandbox({ workDir, chromiumPath: '/usr/bin/chromium' }, sandbox);
    spare.refill();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const taken = spare.take();
    expect(taken).toBeDefined();
    expect(boots).toEqual([['/usr/bin/chromium', taken!.dirs.tempDir, taken!.dirs.userDataDir]]);
    expect(taken!.dirs.throwawayProfile).toBe(true);
    // Handed over: it is the session's now, and the runtime's close leaves it alone.
    await spare.close();
    expect(existsSync(taken!.dirs.userDataDir)).toBe(true);
    await taken!.dirs.removeProfile();
    await rm(taken!.dirs.sessionDir, { recursive: true });

    const unused = spareSandbox({ workDir, chromiumPath: '/usr/bin/chromium' }, sandbox);
    unused.refill();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await unused.close();
    expect((await readdir(workDir)).filter((name) => name.startsWith('s-'))).toEqual([]);
  });
});
