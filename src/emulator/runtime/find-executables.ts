/**
 * Where the runtime finds Chromium and ffmpeg. Exported so the CLI and setup script can report
 * what was found (and why recordings are off) before anything is launched.
 */
import { accessSync, constants, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

const SYSTEM_CHROMIUMS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

export class ChromiumNotFoundError extends Error {
  override name = 'ChromiumNotFoundError';
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Playwright's own downloads: `<cache>/chromium-<rev>/chrome-linux*\/chrome`, newest revision first. */
function playwrightChromiums(): string[] {
  const cache = process.env.PLAYWRIGHT_BROWSERS_PATH || join(homedir(), '.cache', 'ms-playwright');
  let entries: string[];
  try {
    entries = readdirSync(cache);
  } catch {
    return [];
  }
  const revision = (name: string) => Number(name.slice('chromium-'.length)) || 0;
  const found: string[] = [];
  for (const dir of entries.filter((e) => /^chromium-\d+$/.test(e))) {
    let inner: string[] = [];
    try {
      inner = readdirSync(join(cache, dir)).filter((e) => e.startsWith('chrome-linux'));
    } catch {}
    for (const sub of inner) found.push(join(cache, dir, sub, 'chrome'));
  }
  return found.sort(
    (a, b) => revision(b.split('/').at(-3) ?? '') - revision(a.split('/').at(-3) ?? ''),
  );
}

/**
 * The Chromium to launch: `explicit`, else `CHROMIUM_PATH`, else the system Chromium, else
 * Playwright's cache. An explicit path that does not exist is an error rather than a silent
 * fallback, so a typo never launches a different browser than the one asked for.
 */
export function findChromium(explicit?: string): string {
  const asked = explicit ?? process.env.CHROMIUM_PATH;
  if (asked) {
    if (isExecutable(asked)) return asked;
    throw new ChromiumNotFoundError(
      `Chromium not found at ${asked} (from ${explicit ? 'chromiumPath' : 'CHROMIUM_PATH'}): ` +
        'point it at an executable Chromium or Chrome binary',
    );
  }
  const found = [...SYSTEM_CHROMIUMS, ...playwrightChromiums()].find(isExecutable);
  if (found) return found;
  throw new ChromiumNotFoundError(
    'Chromium not found: install it (apt-get install chromium, or npx playwright install chromium) ' +
      'or set CHROMIUM_PATH to a Chromium/Chrome executable',
  );
}

export const FFMPEG_MISSING_REASON =
  'ffmpeg not found: install it (apt-get install ffmpeg) or set FFMPEG_PATH; recordings are off';

export type FfmpegLookup = { path: string } | { path: undefined; reason: string };

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** ffmpeg for recordings: `explicit` (`false` turns recordings off), else `FFMPEG_PATH`, else PATH. */
export function findFfmpeg(explicit?: string | false): FfmpegLookup {
  if (explicit === false)
    return { path: undefined, reason: 'recordings are off (ffmpegPath: false)' };
  const asked = explicit ?? process.env.FFMPEG_PATH;
  if (asked) {
    return isExecutable(asked)
      ? { path: asked }
      : { path: undefined, reason: `ffmpeg not found at ${asked}; ${FFMPEG_MISSING_REASON}` };
  }
  const found = onPath('ffmpeg');
  return found ? { path: found } : { path: undefined, reason: FFMPEG_MISSING_REASON };
}
