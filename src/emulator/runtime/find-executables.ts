/**
 * Where the runtime finds Chromium and ffmpeg. Exported so the CLI and setup script can report
 * what was found (and why recordings are off) before anything is launched. The places looked
 * at, per platform, are in `executable-locations.ts`.
 */
import { accessSync, constants, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import {
  chromiumCandidates,
  chromiumInstallHint,
  envOf,
  ffmpegCandidates,
  ffmpegInstallHint,
  type HostProbe,
} from './executable-locations.js';

export type { HostProbe } from './executable-locations.js';

export class ChromiumNotFoundError extends Error {
  override name = 'ChromiumNotFoundError';
}

function isExecutable(path: string): boolean {
  try {
    // On Windows X_OK is checked as existence, which is what an .exe needs.
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function readdir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** This machine. */
export function currentHost(): HostProbe {
  return {
    platform: process.platform,
    env: process.env,
    homedir: homedir(),
    isExecutable,
    readdir,
  };
}

/**
 * The Chromium to launch: `explicit`, else `CHROMIUM_PATH`, else an installed Chromium, Chrome
 * or Edge, else Playwright's cache. An explicit path that does not exist is an error rather
 * than a silent fallback, so a typo never launches a different browser than the one asked for.
 */
export function findChromium(explicit?: string, host: HostProbe = currentHost()): string {
  const asked = explicit ?? envOf(host, 'CHROMIUM_PATH');
  if (asked) {
    if (host.isExecutable(asked)) return asked;
    throw new ChromiumNotFoundError(
      `Chromium not found at ${asked} (from ${explicit ? 'chromiumPath' : 'CHROMIUM_PATH'}): ` +
        'point it at an executable Chromium or Chrome binary',
    );
  }
  const found = chromiumCandidates(host).find((path) => host.isExecutable(path));
  if (found) return found;
  throw new ChromiumNotFoundError(`Chromium not found: ${chromiumInstallHint(host.platform)}`);
}

export type FfmpegLookup = { path: string } | { path: undefined; reason: string };

/** ffmpeg for recordings: `explicit` (`false` turns recordings off), else `FFMPEG_PATH`, else PATH. */
export function findFfmpeg(
  explicit?: string | false,
  host: HostProbe = currentHost(),
): FfmpegLookup {
  if (explicit === false)
    return { path: undefined, reason: 'recordings are off (ffmpegPath: false)' };
  const missing = `ffmpeg not found: ${ffmpegInstallHint(host.platform)}; recordings are off`;
  const asked = explicit ?? envOf(host, 'FFMPEG_PATH');
  if (asked) {
    return host.isExecutable(asked)
      ? { path: asked }
      : { path: undefined, reason: `ffmpeg not found at ${asked}; ${missing}` };
  }
  const found = ffmpegCandidates(host).find((path) => host.isExecutable(path));
  return found ? { path: found } : { path: undefined, reason: missing };
}
