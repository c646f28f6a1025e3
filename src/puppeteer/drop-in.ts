/**
 * A drop-in `puppeteer`: `puppeteer.launch()` runs on a remote session. Local-binary options
 * are a clear error; harmless ones are documented no-ops.
 */
import type { Browser, LaunchOptions, PuppeteerNode } from 'puppeteer-core';
import { LaunchError } from '../launch/errors.js';
import { launchRemote, type PuppeteerRemoteOptions } from './launch-remote.js';
import { loadPuppeteer } from './load.js';

const UNSUPPORTED = [
  'executablePath',
  'args',
  'channel',
  'ignoreDefaultArgs',
  'pipe',
  'dumpio',
  'env',
  'userDataDir',
  'devtools',
  'extraPrefsFirefox',
  'debuggingPort',
];
/** No-ops: `headless` (no local window; use the live view), `handleSIG*` (no local process), `waitForInitialPage`. */
const NO_OPS = ['headless', 'handleSIGINT', 'handleSIGTERM', 'handleSIGHUP', 'waitForInitialPage'];
const PASSED = [
  'defaultViewport',
  'protocolTimeout',
  'slowMo',
  'targetFilter',
  'acceptInsecureCerts',
];

export type RemotePuppeteerLaunchOptions = LaunchOptions & {
  /** Where and how the remote session runs (targeting, profile, preflight, recording...). */
  remote?: PuppeteerRemoteOptions;
};

export interface RemotePuppeteer {
  /** Creates a remote session and returns Puppeteer's native `Browser` on it. */
  launch(options?: RemotePuppeteerLaunchOptions): Promise<Browser>;
  /** puppeteer-core's own `connect`, unchanged (no session management). */
  connect: PuppeteerNode['connect'];
}

export const puppeteer: RemotePuppeteer = {
  async launch(options = {}) {
    const what = 'puppeteer.launch';
    const { remote, timeout, browser, ...rest } = options as RemotePuppeteerLaunchOptions &
      Record<string, unknown>;
    if (browser !== undefined && browser !== 'chrome') {
      throw new LaunchError(
        `${what}: \`browser: '${String(browser)}'\` cannot apply: remote sessions are Chromium`,
      );
    }
    const bad = Object.keys(rest).filter((k) => UNSUPPORTED.includes(k) && rest[k] !== undefined);
    if (bad.length) {
      const hint = bad.includes('userDataDir')
        ? " For persistent cookies use `remote: { profile: 'name' }`."
        : '';
      throw new LaunchError(
        `${what}: ${bad.map((k) => `\`${k}\``).join(', ')} cannot apply to a remote browser (the service runs its own Chromium through your proxy).${hint}`,
      );
    }
    const passed: Record<string, unknown> = {};
    for (const key of PASSED) if (rest[key] !== undefined) passed[key] = rest[key];
    const unknown = Object.keys(rest).filter(
      (k) =>
        !PASSED.includes(k) &&
        !NO_OPS.includes(k) &&
        !UNSUPPORTED.includes(k) &&
        rest[k] !== undefined,
    );
    if (unknown.length) {
      throw new LaunchError(
        `${what}: unsupported option(s) ${unknown.map((k) => `\`${k}\``).join(', ')} for a remote browser`,
      );
    }
    return launchRemote({
      ...(remote ?? {}),
      ...passed,
      ...(timeout !== undefined && remote?.timeout === undefined ? { timeout } : {}),
    });
  },
  connect: (async (...args: Parameters<PuppeteerNode['connect']>) =>
    (await loadPuppeteer('puppeteer.connect')).connect(...args)) as PuppeteerNode['connect'],
};
