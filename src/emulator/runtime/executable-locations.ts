/**
 * Where Chromium and ffmpeg usually live on Linux, macOS and Windows, as pure functions of a
 * host description, so each platform's list is tested on any machine. `find-executables.ts`
 * probes them in order.
 */
import { posix, win32 } from 'node:path';

/** What the finders may learn about the machine; injected in tests. */
export interface HostProbe {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  homedir: string;
  isExecutable(path: string): boolean;
  /** Entry names of a directory; [] when it cannot be read. */
  readdir(path: string): string[];
}

const pathFor = (host: HostProbe) => (host.platform === 'win32' ? win32 : posix);

/** Windows environment names are case-insensitive; an injected env object is not. */
export function envOf(host: HostProbe, name: string): string | undefined {
  if (host.platform !== 'win32') return host.env[name] || undefined;
  const key = Object.keys(host.env).find((k) => k.toLowerCase() === name.toLowerCase());
  return (key && host.env[key]) || undefined;
}

function systemChromiums(host: HostProbe): string[] {
  const { join } = pathFor(host);
  if (host.platform === 'darwin') {
    const apps = [
      ['Google Chrome.app', 'Google Chrome'],
      ['Chromium.app', 'Chromium'],
      ['Microsoft Edge.app', 'Microsoft Edge'],
    ];
    // Drag-installed apps land in /Applications, per-user ones in ~/Applications.
    return ['/Applications', join(host.homedir, 'Applications')].flatMap((dir) =>
      apps.map(([app, binary]) => join(dir, app as string, 'Contents', 'MacOS', binary as string)),
    );
  }
  if (host.platform === 'win32') {
    const programFiles = envOf(host, 'ProgramFiles') ?? 'C:\\Program Files';
    const programFilesX86 = envOf(host, 'ProgramFiles(x86)') ?? 'C:\\Program Files (x86)';
    const localAppData = envOf(host, 'LOCALAPPDATA') ?? join(host.homedir, 'AppData', 'Local');
    const chrome = join('Google', 'Chrome', 'Application', 'chrome.exe');
    const edge = join('Microsoft', 'Edge', 'Application', 'msedge.exe');
    return [
      join(programFiles, chrome),
      join(programFilesX86, chrome),
      // A per-user Chrome install (no admin rights) and the Chromium installer's location.
      join(localAppData, chrome),
      join(localAppData, 'Chromium', 'Application', 'chrome.exe'),
      join(programFilesX86, edge),
      join(programFiles, edge),
    ];
  }
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/snap/bin/chromium',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/opt/google/chrome/chrome',
    '/usr/bin/microsoft-edge-stable',
  ];
}

/** Playwright's browser cache, as Playwright itself computes it on each platform. */
export function playwrightCacheDir(host: HostProbe): string {
  const { join } = pathFor(host);
  const explicit = envOf(host, 'PLAYWRIGHT_BROWSERS_PATH');
  // "0" means "inside node_modules/playwright-core", which is not ours to guess.
  if (explicit && explicit !== '0') return explicit;
  if (host.platform === 'darwin') return join(host.homedir, 'Library', 'Caches', 'ms-playwright');
  if (host.platform === 'win32') {
    const local = envOf(host, 'LOCALAPPDATA') ?? join(host.homedir, 'AppData', 'Local');
    return join(local, 'ms-playwright');
  }
  return join(envOf(host, 'XDG_CACHE_HOME') ?? join(host.homedir, '.cache'), 'ms-playwright');
}

/** Inside `chromium-<revision>/`: Chrome for Testing builds first, then the older layouts. */
function playwrightLayouts(platform: NodeJS.Platform): string[][] {
  if (platform === 'darwin') {
    const cft = ['Google Chrome for Testing.app', 'Contents', 'MacOS', 'Google Chrome for Testing'];
    return [
      ['chrome-mac-arm64', ...cft],
      ['chrome-mac-x64', ...cft],
      ['chrome-mac', 'Chromium.app', 'Contents', 'MacOS', 'Chromium'],
    ];
  }
  if (platform === 'win32') {
    return [
      ['chrome-win64', 'chrome.exe'],
      ['chrome-win', 'chrome.exe'],
    ];
  }
  return [
    ['chrome-linux64', 'chrome'],
    ['chrome-linux-arm64', 'chrome'],
    ['chrome-linux', 'chrome'],
  ];
}

/** Playwright's downloaded Chromiums, newest revision first. */
function playwrightChromiums(host: HostProbe): string[] {
  const { join } = pathFor(host);
  const cache = playwrightCacheDir(host);
  const revision = (name: string) => Number(name.slice('chromium-'.length));
  const dirs = host
    .readdir(cache)
    .filter((e) => /^chromium-\d+$/.test(e))
    .sort((a, b) => revision(b) - revision(a));
  return dirs.flatMap((dir) =>
    playwrightLayouts(host.platform).map((layout) => join(cache, dir, ...layout)),
  );
}

/** Every place a Chromium is looked for, in order: installed browsers, then Playwright's cache. */
export function chromiumCandidates(host: HostProbe): string[] {
  return [...systemChromiums(host), ...playwrightChromiums(host)];
}

/**
 * ffmpeg: each PATH directory, then where package managers put it when a shell's PATH was not
 * refreshed (a GUI-started editor on macOS has no Homebrew on PATH; winget's link directory is
 * added to PATH only for new shells). On Windows only `ffmpeg.exe`: a `.cmd` shim cannot be
 * spawned without a shell.
 */
export function ffmpegCandidates(host: HostProbe): string[] {
  const { join, delimiter } = pathFor(host);
  const name = host.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg';
  const onPath = (envOf(host, 'PATH') ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name));
  if (host.platform === 'darwin') {
    return [...onPath, '/opt/homebrew/bin/ffmpeg', '/usr/local/bin/ffmpeg'];
  }
  if (host.platform === 'win32') {
    const localAppData = envOf(host, 'LOCALAPPDATA') ?? join(host.homedir, 'AppData', 'Local');
    const programData = envOf(host, 'ProgramData') ?? 'C:\\ProgramData';
    return [
      ...onPath,
      join(localAppData, 'Microsoft', 'WinGet', 'Links', name),
      join(host.homedir, 'scoop', 'shims', name),
      join(programData, 'chocolatey', 'bin', name),
    ];
  }
  return [...onPath, '/usr/bin/ffmpeg', '/usr/local/bin/ffmpeg'];
}

/** The install advice for this platform (never apt-get on a Mac). */
export function chromiumInstallHint(platform: NodeJS.Platform): string {
  const fallback =
    'or npx playwright install chromium, or set CHROMIUM_PATH to a Chromium/Chrome executable';
  if (platform === 'darwin')
    return `install Google Chrome or Chromium (brew install --cask chromium), ${fallback}`;
  if (platform === 'win32') return `install Google Chrome or Microsoft Edge, ${fallback}`;
  return `install it (apt-get install chromium), ${fallback}`;
}

export function ffmpegInstallHint(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'install it (brew install ffmpeg) or set FFMPEG_PATH';
  if (platform === 'win32')
    return 'install it (winget install Gyan.FFmpeg) or set FFMPEG_PATH to ffmpeg.exe';
  return 'install it (apt-get install ffmpeg) or set FFMPEG_PATH';
}
