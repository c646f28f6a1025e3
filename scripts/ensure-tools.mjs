#!/usr/bin/env node
// Makes sure the emulator can run here: a Chromium (required) and ffmpeg (optional: without it
// the emulator runs with recordings off). Runs before `npm test` and `npm run demo`.
//
// Order for Chromium: CHROMIUM_PATH, a system Chromium, Playwright's cache; then Debian's
// `chromium` via apt-get when running as root on a Debian-like system (needs no CDN, which is
// what CI and closed networks have); then Playwright's own installer; else one line saying
// exactly what to install. ffmpeg: FFMPEG_PATH, PATH, then apt-get as root.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

const quiet = process.argv.includes('--quiet');
const log = (line) => {
  if (!quiet) console.error(`[ensure-tools] ${line}`);
};

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const file = join(dir, name);
    if (dir && existsSync(file)) return file;
  }
  return undefined;
}

function playwrightChromium() {
  const root = process.env.PLAYWRIGHT_BROWSERS_PATH || join(homedir(), '.cache', 'ms-playwright');
  if (!existsSync(root)) return undefined;
  for (const dir of readdirSync(root)
    .filter((d) => d.startsWith('chromium-'))
    .sort()
    .reverse()) {
    for (const sub of ['chrome-linux64/chrome', 'chrome-linux/chrome']) {
      const file = join(root, dir, sub);
      if (existsSync(file)) return file;
    }
  }
  return undefined;
}

function findChromium() {
  if (process.env.CHROMIUM_PATH && existsSync(process.env.CHROMIUM_PATH))
    return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    const found = onPath(name) ?? (existsSync(`/usr/bin/${name}`) ? `/usr/bin/${name}` : undefined);
    if (found) return found;
  }
  return playwrightChromium();
}

function findFfmpeg() {
  if (process.env.FFMPEG_PATH && existsSync(process.env.FFMPEG_PATH))
    return process.env.FFMPEG_PATH;
  return onPath('ffmpeg');
}

const isRoot = process.getuid?.() === 0;
const hasApt = Boolean(onPath('apt-get'));
let aptUpdated = false;

function aptInstall(pkg) {
  if (!isRoot || !hasApt) return false;
  log(`installing Debian package ${pkg} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    aptUpdated = true;
  }
  const r = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], {
    stdio: 'inherit',
    env,
  });
  return r.status === 0;
}

function playwrightInstall() {
  log("trying Playwright's browser installer (needs access to its CDN)");
  try {
    execFileSync(
      process.execPath,
      [join('node_modules', 'playwright-core', 'cli.js'), 'install', 'chromium'],
      {
        stdio: 'inherit',
        timeout: 120_000,
      },
    );
    return true;
  } catch {
    return false;
  }
}

let chromium = findChromium();
if (!chromium) {
  if (aptInstall('chromium')) chromium = findChromium();
  if (
    !chromium &&
    existsSync(join('node_modules', 'playwright-core', 'cli.js')) &&
    playwrightInstall()
  ) {
    chromium = findChromium();
  }
}
if (!chromium) {
  console.error(
    'remote-browser: no Chromium found. Install one (Debian/Ubuntu: `sudo apt-get install chromium`; or `npx playwright install chromium`) or set CHROMIUM_PATH to a Chrome/Chromium executable.',
  );
  process.exit(1);
}
log(`Chromium: ${chromium}`);

let ffmpeg = findFfmpeg();
if (!ffmpeg && aptInstall('ffmpeg')) ffmpeg = findFfmpeg();
if (ffmpeg) log(`ffmpeg: ${ffmpeg}`);
else {
  console.error(
    'remote-browser: ffmpeg not found, so the emulator will run with recordings off. Install it (`sudo apt-get install ffmpeg`) or set FFMPEG_PATH.',
  );
}
