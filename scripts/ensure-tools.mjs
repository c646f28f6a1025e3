#!/usr/bin/env node
// Makes sure the emulator can run here: a Chromium (required), ffmpeg (optional: without it
// the emulator runs with recordings off) and, on Linux, bubblewrap (for `isolation: 'remote'`:
// without it the emulator falls back to 'none' with a warning, or fails with CI=true). Runs before `npm test` and `npm run demo`, after the
// build, and asks the emulator's own finders (dist/emulator.js), so it accepts exactly what the
// emulator will use.
//
// When nothing is found: Debian's `chromium`/`ffmpeg`/`bubblewrap` via apt-get when running as root (needs no
// CDN, which is what CI and closed networks have), then Playwright's own browser installer, else
// one line saying exactly what to install.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findChromium, findFfmpeg } from '../dist/emulator.js';

const log = (line) => console.error(`[ensure-tools] ${line}`);

function chromium() {
  try {
    return findChromium();
  } catch {
    return undefined;
  }
}

const hasApt = existsSync('/usr/bin/apt-get');
const isRoot = process.getuid?.() === 0;
let aptUpdated = false;

function aptInstall(pkg) {
  if (!isRoot || !hasApt) return false;
  log(`installing Debian package ${pkg} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    aptUpdated = true;
  }
  return (
    spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], {
      stdio: 'inherit',
      env,
    }).status === 0
  );
}

function playwrightInstall() {
  const cli = join('node_modules', 'playwright-core', 'cli.js');
  if (!existsSync(cli)) return false;
  log("trying Playwright's browser installer (needs access to its CDN)");
  try {
    execFileSync(process.execPath, [cli, 'install', 'chromium'], {
      stdio: 'inherit',
      timeout: 120_000,
    });
    return true;
  } catch {
    return false;
  }
}

let found = chromium();
// An explicit CHROMIUM_PATH that is wrong is the user's to fix: installing would not help.
if (!found && !process.env.CHROMIUM_PATH && aptInstall('chromium')) found = chromium();
if (!found && !process.env.CHROMIUM_PATH && playwrightInstall()) found = chromium();
if (!found) {
  try {
    findChromium();
  } catch (error) {
    console.error(`remote-browser: ${error.message}`);
  }
  process.exit(1);
}
log(`Chromium: ${found}`);

let ffmpeg = findFfmpeg();
if (!ffmpeg.path && aptInstall('ffmpeg')) ffmpeg = findFfmpeg();
if (ffmpeg.path) log(`ffmpeg: ${ffmpeg.path}`);
else console.error(`remote-browser: ${ffmpeg.reason}. The emulator will run with recordings off.`);

if (process.platform === 'linux') {
  const bwrap = () => ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'].find(existsSync);
  if (!bwrap()) aptInstall('bubblewrap');
  if (bwrap()) log(`bubblewrap: ${bwrap()}`);
  else {
    console.error(
      "remote-browser: bubblewrap (bwrap) not found: the emulator's sessions fall back to isolation 'none' (apt-get install bubblewrap).",
    );
  }
}

// Selenium's chromedriver, for the test that attaches it through a session's debugger_address
// (test/ecosystem/attach-paths.e2e.test.ts; skipped without it). Debian's `chromium-driver` is
// built with Debian's `chromium`, so its version matches; another Chromium needs its own driver.
const chromedriver = () =>
  [process.env.CHROMEDRIVER_PATH, '/usr/bin/chromedriver'].find((path) => path && existsSync(path));
if (!chromedriver() && found === '/usr/bin/chromium') aptInstall('chromium-driver');
if (chromedriver()) log(`chromedriver: ${chromedriver()}`);
else
  log(
    'chromedriver not found: the chromedriver attach test is skipped (apt-get install chromium-driver).',
  );
