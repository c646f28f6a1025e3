/**
 * `chromium.launch()` / `launchPersistentContext()` options, sorted into what maps to the
 * remote session and what is ignored (with the reason). Mapped:
 * - `headless` → the service's `headless` (unless `remote.remoteHeadless` is set);
 * - `timeout` → the launch timeout (create, slot wait and connect); `slowMo` → `connectOverCDP`;
 * - `downloadsPath` → the remote browser's downloads land there too (remote-cdp/downloads.ts);
 * - `args`: `--window-size=W,H` → the viewport, `--lang` → locale emulation, `--user-agent` →
 *   user-agent emulation, on the session's default context;
 * - a persistent context's context options → applied to the session's existing context
 *   (`playwright/context-options.ts`, with `userAgent`/`locale`/`timezoneId` emulated);
 * - the persistent context's directory → a saved profile (a bare name always; a path when
 *   `remote.userDataDir` is `'profile'`).
 * Ignored with one warning per process (an error with `remote.strict`): `executablePath`,
 * `channel` (a local-only choice: the session is the service's Chromium), `chromiumSandbox`,
 * `env`, `ignoreDefaultArgs`, `firefoxUserPrefs`, `devtools`, other `args` switches (the service
 * runs its own Chromium); `proxy` and `--proxy-server` (the session's own proxy is used);
 * `handleSIGINT`/`SIGTERM`/`SIGHUP` (no local process); `tracesDir`,
 * `artifactsDir` (the remote browser keeps its own files); `logger`; unknown keys.
 */
import type { BrowserContextOptions } from 'playwright-core';
import {
  type DropInRemoteOptions,
  type Ignored,
  mapArgs,
  sortLocalKeys,
  splitRemote,
  WHY,
} from '../launch/drop-in-options.js';
import { LAUNCH_SCHEMAS } from '../launch/option-schemas.js';
import { parseEntry } from '../launch/parse-options.js';
import { withUserGeo } from '../remote-cdp/geo-resolve.js';
import { unappliedOptions } from './context-options.js';
import type { PlaywrightRemoteOptions } from './launch-remote.js';

const IGNORED: Record<string, string> = {
  executablePath: WHY.localBinary,
  channel: 'a local-only choice: the session runs the service’s Chromium',
  chromiumSandbox: WHY.localBinary,
  env: WHY.localBinary,
  ignoreDefaultArgs: WHY.localBinary,
  firefoxUserPrefs: WHY.localBinary,
  devtools: WHY.localBinary,
  proxy: WHY.proxy,
  handleSIGINT: WHY.noProcess,
  handleSIGTERM: WHY.noProcess,
  handleSIGHUP: WHY.noProcess,
  tracesDir: WHY.localFiles,
  artifactsDir: WHY.localFiles,
  logger: 'the remote connection logs through DEBUG=remote-browser:*',
};
const MAPPED = new Set(['remote', 'headless', 'timeout', 'slowMo', 'args', 'downloadsPath']);

export interface SortedLaunch {
  remote: PlaywrightRemoteOptions;
  dropIn: DropInRemoteOptions;
  /** Applied to the session's default context after connecting (empty: nothing to apply). */
  context: BrowserContextOptions;
  ignored: Ignored[];
}

/**
 * Checks the options of one call with the entry's schema, then sorts them. `persistent`: every
 * key that is not a launch option is a context option (and `userDataDir` is checked too).
 */
export function sortLaunchOptions(
  what: string,
  options: Record<string, unknown>,
  persistent: boolean,
  userDataDir?: unknown,
): SortedLaunch {
  if (persistent) {
    parseEntry(
      what,
      LAUNCH_SCHEMAS.chromiumPersistent,
      { userDataDir, options },
      {
        relativeTo: 'options',
      },
    );
  } else {
    parseEntry(what, LAUNCH_SCHEMAS.chromiumLaunch, options);
  }
  const { headless, timeout, slowMo, args, downloadsPath } = options;
  const { dropIn, remote } = splitRemote<PlaywrightRemoteOptions>(options.remote);
  const context: Record<string, unknown> = {};
  const ignored = sortLocalKeys(
    options,
    MAPPED,
    IGNORED,
    persistent ? (key, value) => (context[key] = value) : undefined,
  );
  const mapped = mapArgs(args);
  ignored.push(...mapped.ignored);
  if (mapped.windowSize && context.viewport === undefined) context.viewport = mapped.windowSize;
  if (mapped.lang && context.locale === undefined) context.locale = mapped.lang;
  if (mapped.userAgent && context.userAgent === undefined) context.userAgent = mapped.userAgent;
  // The user's zone, locale and position go out as geo's explicit values, on every target the way
  // geo applies them (a second emulation session would be refused: one override per target).
  let geo = remote.geo;
  if (geo !== false) {
    const { timezoneId, locale, geolocation } = context as BrowserContextOptions;
    geo = withUserGeo(geo, {
      ...(typeof timezoneId === 'string' ? { timezoneId } : {}),
      ...(typeof locale === 'string' ? { locale } : {}),
      ...(geolocation ? { geolocation } : {}),
    });
    delete context.timezoneId;
    delete context.locale;
    delete context.geolocation;
  }
  for (const key of unappliedOptions(context as BrowserContextOptions, { emulate: true })) {
    ignored.push({
      option: key,
      why: "cannot be applied to the remote session's existing context (use chromium.launch() and browser.newContext() for it)",
    });
    delete context[key];
  }
  return {
    remote: {
      ...remote,
      ...(geo !== undefined ? { geo } : {}),
      ...(typeof headless === 'boolean' && remote.remoteHeadless === undefined
        ? { remoteHeadless: headless }
        : {}),
      ...(timeout !== undefined && remote.timeout === undefined
        ? { timeout: timeout as number }
        : {}),
      ...(slowMo !== undefined && remote.slowMo === undefined ? { slowMo: slowMo as number } : {}),
      ...(typeof downloadsPath === 'string' && remote.downloadsPath === undefined
        ? { downloadsPath }
        : {}),
    },
    dropIn,
    context: context as BrowserContextOptions,
    ignored,
  };
}
