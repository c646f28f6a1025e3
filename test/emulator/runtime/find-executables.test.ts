import { describe, expect, it } from 'vitest';
import type { HostProbe } from '../../../src/emulator/runtime/executable-locations.js';
import {
  ChromiumNotFoundError,
  findChromium,
  findFfmpeg,
} from '../../../src/emulator/runtime/find-executables.js';

/** A machine that has exactly `executables` and the directory listings in `dirs`. */
function host(
  platform: NodeJS.Platform,
  executables: string[],
  options: { env?: Record<string, string>; homedir?: string; dirs?: Record<string, string[]> } = {},
): HostProbe & { probed: string[] } {
  const probed: string[] = [];
  return {
    platform,
    env: options.env ?? {},
    homedir: options.homedir ?? (platform === 'win32' ? 'C:\\Users\\ada' : '/home/ada'),
    probed,
    isExecutable: (path) => {
      probed.push(path);
      return executables.includes(path);
    },
    readdir: (path) => options.dirs?.[path] ?? [],
  };
}

const MAC_CHROME = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';
const WIN_CHROME = 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe';

describe('findChromium on macOS', () => {
  it('finds Google Chrome in /Applications', () => {
    expect(findChromium(undefined, host('darwin', [MAC_CHROME]))).toBe(MAC_CHROME);
  });

  it('finds a per-user Chromium.app in ~/Applications', () => {
    const path = '/Users/ada/Applications/Chromium.app/Contents/MacOS/Chromium';
    expect(findChromium(undefined, host('darwin', [path], { homedir: '/Users/ada' }))).toBe(path);
  });

  it("finds Playwright's Chrome for Testing in ~/Library/Caches, newest revision first", () => {
    const cache = '/Users/ada/Library/Caches/ms-playwright';
    const app = 'Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing';
    const older = `${cache}/chromium-1150/chrome-mac-arm64/${app}`;
    const newer = `${cache}/chromium-1194/chrome-mac-arm64/${app}`;
    const machine = host('darwin', [older, newer], {
      homedir: '/Users/ada',
      dirs: { [cache]: ['chromium-1150', 'ffmpeg-1011', 'chromium-1194'] },
    });
    expect(findChromium(undefined, machine)).toBe(newer);
  });

  it('suggests Homebrew or Chrome, never apt-get, when nothing is installed', () => {
    const error = (() => {
      try {
        findChromium(undefined, host('darwin', []));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ChromiumNotFoundError);
    expect((error as Error).message).toMatch(/brew install --cask chromium.*CHROMIUM_PATH/);
    expect((error as Error).message).not.toMatch(/apt-get/);
  });
});

describe('findChromium on Windows', () => {
  it('finds Chrome under %ProgramFiles% with Windows separators', () => {
    const machine = host('win32', [WIN_CHROME], { env: { ProgramFiles: 'C:\\Program Files' } });
    expect(findChromium(undefined, machine)).toBe(WIN_CHROME);
  });

  it('reads environment names case-insensitively and finds a per-user Chrome in LOCALAPPDATA', () => {
    const path = 'D:\\Users\\ada\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe';
    const machine = host('win32', [path], {
      env: { localappdata: 'D:\\Users\\ada\\AppData\\Local' },
    });
    expect(findChromium(undefined, machine)).toBe(path);
  });

  it('falls back to Microsoft Edge, which every Windows has', () => {
    const edge = 'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe';
    expect(findChromium(undefined, host('win32', [edge]))).toBe(edge);
  });

  it("finds Playwright's chromium in %LOCALAPPDATA%\\ms-playwright", () => {
    const cache = 'C:\\Users\\ada\\AppData\\Local\\ms-playwright';
    const path = `${cache}\\chromium-1194\\chrome-win64\\chrome.exe`;
    const machine = host('win32', [path], { dirs: { [cache]: ['chromium-1194'] } });
    expect(findChromium(undefined, machine)).toBe(path);
  });

  it('suggests Chrome or Edge on Windows', () => {
    expect(() => findChromium(undefined, host('win32', []))).toThrow(
      /install Google Chrome or Microsoft Edge, or npx playwright install chromium/,
    );
  });
});

describe('findChromium on Linux', () => {
  it('prefers the system Chromium over Google Chrome', () => {
    const machine = host('linux', ['/usr/bin/google-chrome', '/usr/bin/chromium']);
    expect(findChromium(undefined, machine)).toBe('/usr/bin/chromium');
  });

  it("follows XDG_CACHE_HOME to Playwright's cache, as Playwright does", () => {
    const path = '/xdg/ms-playwright/chromium-1194/chrome-linux64/chrome';
    const machine = host('linux', [path], {
      env: { XDG_CACHE_HOME: '/xdg' },
      dirs: { '/xdg/ms-playwright': ['chromium-1194'] },
    });
    expect(findChromium(undefined, machine)).toBe(path);
  });

  it('honours PLAYWRIGHT_BROWSERS_PATH', () => {
    const path = '/pw/chromium-1100/chrome-linux/chrome';
    const machine = host('linux', [path], {
      env: { PLAYWRIGHT_BROWSERS_PATH: '/pw' },
      dirs: { '/pw': ['chromium-1100'] },
    });
    expect(findChromium(undefined, machine)).toBe(path);
  });

  it('keeps the apt-get hint on Linux', () => {
    expect(() => findChromium(undefined, host('linux', []))).toThrow(/apt-get install chromium/);
  });

  it('never falls back from an explicit CHROMIUM_PATH that does not exist', () => {
    const machine = host('linux', ['/usr/bin/chromium'], {
      env: { CHROMIUM_PATH: '/typo/chrome' },
    });
    expect(() => findChromium(undefined, machine)).toThrow(
      /Chromium not found at \/typo\/chrome \(from CHROMIUM_PATH\)/,
    );
    expect(machine.probed).toEqual(['/typo/chrome']);
  });
});

describe('findFfmpeg', () => {
  it('finds ffmpeg.exe on a Windows PATH (semicolon-separated, case-insensitive name)', () => {
    const path = 'C:\\tools\\ffmpeg\\bin\\ffmpeg.exe';
    const machine = host('win32', [path], {
      env: { Path: 'C:\\Windows;C:\\tools\\ffmpeg\\bin' },
    });
    expect(findFfmpeg(undefined, machine)).toEqual({ path });
    expect(machine.probed).not.toContain('C:\\tools\\ffmpeg\\bin\\ffmpeg');
  });

  it("finds winget's link when the shell's PATH predates the install", () => {
    const path = 'C:\\Users\\ada\\AppData\\Local\\Microsoft\\WinGet\\Links\\ffmpeg.exe';
    expect(findFfmpeg(undefined, host('win32', [path], { env: { PATH: 'C:\\Windows' } }))).toEqual({
      path,
    });
  });

  it('finds Homebrew ffmpeg on macOS when PATH lacks it', () => {
    const machine = host('darwin', ['/opt/homebrew/bin/ffmpeg'], {
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(findFfmpeg(undefined, machine)).toEqual({ path: '/opt/homebrew/bin/ffmpeg' });
  });

  it('finds ffmpeg on a Linux PATH', () => {
    const machine = host('linux', ['/opt/bin/ffmpeg'], {
      env: { PATH: '/usr/local/bin:/opt/bin' },
    });
    expect(findFfmpeg(undefined, machine)).toEqual({ path: '/opt/bin/ffmpeg' });
  });

  it('gives each platform its own install hint and says recordings are off', () => {
    const reason = (platform: NodeJS.Platform) => {
      const lookup = findFfmpeg(undefined, host(platform, []));
      return lookup.path === undefined ? lookup.reason : '';
    };
    expect(reason('darwin')).toMatch(/brew install ffmpeg.*recordings are off/);
    expect(reason('win32')).toMatch(/winget install Gyan\.FFmpeg.*recordings are off/);
    expect(reason('linux')).toMatch(/apt-get install ffmpeg.*recordings are off/);
  });

  it('turns recordings off on request without probing anything', () => {
    const machine = host('linux', ['/usr/bin/ffmpeg']);
    expect(findFfmpeg(false, machine)).toMatchObject({ path: undefined });
    expect(machine.probed).toEqual([]);
  });
});
