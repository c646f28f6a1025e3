/**
 * A session's dirs on the host: its own folder (a throwaway profile, a recording's frames) and
 * Chromium's temp dir, made before it starts and removed after; and the runtime's spare sandbox,
 * booted ahead on such dirs.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromiumTempDir } from './chromium-process.js';
import type { SessionSandbox } from './isolated-network.js';
import { removeOnExit } from './process-groups.js';
import { SpareSandbox } from './sandbox-process.js';

export interface Profile {
  /** `<workDir>/s-<random>`: the throwaway profile and the recording's frames live here. */
  sessionDir: string;
  userDataDir: string;
  throwawayProfile: boolean;
  tempDir: string | undefined;
  /** Removes Chromium's temp dir, and the profile unless it is a kept one. */
  removeProfile(): Promise<void>;
}

/** The runtime's spare sandbox, on a throwaway profile's dirs made as for a session. */
export function spareSandbox(
  config: { workDir: string; chromiumPath: string },
  sandbox: SessionSandbox,
): SpareSandbox<Profile> {
  return new SpareSandbox({
    makeDirs: () => prepareProfile(undefined, config),
    boot(profile) {
      if (!profile.tempDir) throw new Error('no temp dir path short enough for its sockets');
      return sandbox.boot(config.chromiumPath, profile.tempDir, profile.userDataDir);
    },
    async removeDirs(profile) {
      await profile.removeProfile();
      await rmdir(profile.sessionDir).catch(() => {});
    },
  });
}

/** A session's dirs: its own, a throwaway profile in them unless `keptProfile` is given. */
export async function prepareProfile(
  keptProfile: string | undefined,
  config: { workDir: string },
): Promise<Profile> {
  // Not named after the session: its path reaches Chromium's and ffmpeg's argv, which `ps`
  // shows every local user, and a session id is not for them.
  const sessionDir = join(config.workDir, `s-${randomBytes(9).toString('base64url')}`);
  const throwawayProfile = keptProfile === undefined;
  const userDataDir = keptProfile ?? join(sessionDir, 'profile');
  // Inside the work dir, never it: a launch after shutdown removed it fails, not makes it again.
  if (throwawayProfile) await mkdir(sessionDir).then(() => mkdir(userDataDir));
  else await mkdir(userDataDir, { recursive: true });
  const tempDir = await chromiumTempDir(config.workDir);
  // Outside the work dir (a long TMPDIR) it needs its own removal if the process dies first.
  const forgetTempDir =
    tempDir && !tempDir.startsWith(config.workDir) ? removeOnExit(tempDir) : () => {};
  return {
    sessionDir,
    userDataDir,
    throwawayProfile,
    tempDir,
    async removeProfile() {
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
      forgetTempDir();
      if (throwawayProfile) await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
