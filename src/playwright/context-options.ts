/**
 * Context options on a remote session's existing (default) context. That context exists before
 * our code runs (it carries the service's recording, proxy, live view and profile), so options
 * that Playwright only takes at `newContext()` cannot reach it through Playwright. What can be
 * applied after the fact is applied here, the same way for every page the context opens; the
 * rest is listed back so the caller can say so (the fixture as a note on the test, the drop-in
 * as a warning). The one home of this job: the fixture and the drop-in both call it.
 */
import type { BrowserContext, BrowserContextOptions, CDPSession, Page } from 'playwright-core';
import { nodeFsPromises } from '../http/node-builtins.js';

/** Applied through Playwright's own after-the-fact APIs. */
const APPLIED = new Set([
  'viewport',
  'extraHTTPHeaders',
  'geolocation',
  'permissions',
  'offline',
  'colorScheme',
  'reducedMotion',
  'forcedColors',
  'contrast',
  'storageState',
  'baseURL',
]);

/** Applied through CDP's Emulation domain when the caller asks for it (`emulate: true`). */
const EMULATED = new Set(['userAgent', 'locale', 'timezoneId']);

/** Playwright's defaults for the options that cannot be applied: equal to these, nothing is lost. */
const PLAYWRIGHT_DEFAULTS: Record<string, unknown> = {
  acceptDownloads: true,
  bypassCSP: false,
  hasTouch: false,
  ignoreHTTPSErrors: false,
  isMobile: false,
  javaScriptEnabled: true,
  locale: 'en-US',
  serviceWorkers: 'allow',
};

export interface ApplyOptions {
  /**
   * Also apply `userAgent`, `locale` and `timezoneId` with CDP emulation on every page. The
   * fixture leaves them to a new context (worker scope); the drop-in maps them. Default: false.
   */
  emulate?: boolean;
}

const remoteDefaultContexts = new WeakSet<BrowserContext>();
const applied = new WeakSet<BrowserContext>();

/** The context a session came with (the one being recorded), as marked by `applyContextOptions`. */
export function isRemoteDefaultContext(context: BrowserContext): boolean {
  return remoteDefaultContexts.has(context);
}

/** Option names that are set to something other than Playwright's default and cannot apply here. */
export function unappliedOptions(
  options: BrowserContextOptions,
  { emulate = false }: ApplyOptions = {},
): string[] {
  return Object.entries(options)
    .filter(([key, value]) => value !== undefined && !APPLIED.has(key))
    .filter(([key]) => !(emulate && EMULATED.has(key)))
    .filter(([key, value]) => !(key in PLAYWRIGHT_DEFAULTS) || PLAYWRIGHT_DEFAULTS[key] !== value)
    .filter(
      ([key, value]) => !(key === 'clientCertificates' && Array.isArray(value) && !value.length),
    )
    .map(([key]) => key);
}

type StorageState = {
  cookies?: Parameters<BrowserContext['addCookies']>[0];
  origins?: { origin: string; localStorage: { name: string; value: string }[] }[];
};

/**
 * Applies what can be applied, once per context, and returns the names of the options that
 * could not.
 */
export async function applyContextOptions(
  context: BrowserContext,
  options: BrowserContextOptions,
  applyOptions: ApplyOptions = {},
): Promise<string[]> {
  remoteDefaultContexts.add(context);
  const missing = unappliedOptions(options, applyOptions);
  if (applied.has(context)) return missing;
  applied.add(context);

  const { extraHTTPHeaders, geolocation, permissions, offline, storageState, baseURL } = options;
  if (extraHTTPHeaders) await context.setExtraHTTPHeaders(extraHTTPHeaders);
  if (geolocation) await context.setGeolocation(geolocation);
  if (permissions?.length) await context.grantPermissions(permissions);
  if (offline) await context.setOffline(true);
  if (storageState) await applyStorageState(context, storageState);
  if (baseURL) setBaseURL(context, baseURL);
  const emulation = applyOptions.emulate ? emulationOf(options) : null;

  const preparePage = async (page: Page) => {
    if (emulation) await emulate(context, page, emulation);
    if (options.viewport) await page.setViewportSize(options.viewport);
    const media = mediaOptions(options);
    if (media) await page.emulateMedia(media);
    if (baseURL) resolveGotoAgainst(page, baseURL);
  };
  for (const page of context.pages()) await preparePage(page);
  context.on('page', (page) => {
    preparePage(page).catch(() => {
      // The page closed while it was being prepared.
    });
  });
  return missing;
}

interface Emulation {
  userAgent?: string;
  locale?: string;
  timezoneId?: string;
}

function emulationOf(options: BrowserContextOptions): Emulation | null {
  const { userAgent, locale, timezoneId } = options;
  if (!userAgent && !locale && !timezoneId) return null;
  return {
    ...(userAgent ? { userAgent } : {}),
    ...(locale ? { locale } : {}),
    ...(timezoneId ? { timezoneId } : {}),
  };
}

/** Kept open per page: Chromium drops a session's Emulation overrides when it detaches. */
const emulationSessions = new WeakMap<Page, CDPSession>();

async function emulate(context: BrowserContext, page: Page, e: Emulation): Promise<void> {
  const session = await context.newCDPSession(page);
  emulationSessions.set(page, session);
  if (e.userAgent || e.locale) {
    const userAgent =
      e.userAgent ??
      ((await session.send('Browser.getVersion')) as { userAgent: string }).userAgent;
    await session.send('Emulation.setUserAgentOverride', {
      userAgent,
      ...(e.locale ? { acceptLanguage: e.locale } : {}),
    });
  }
  if (e.locale) await session.send('Emulation.setLocaleOverride', { locale: e.locale });
  if (e.timezoneId)
    await session.send('Emulation.setTimezoneOverride', { timezoneId: e.timezoneId });
}

function mediaOptions(options: BrowserContextOptions): Parameters<Page['emulateMedia']>[0] | null {
  const media: Record<string, unknown> = {};
  for (const key of ['colorScheme', 'reducedMotion', 'forcedColors', 'contrast'] as const) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) media[key] = value;
  }
  return Object.keys(media).length ? (media as Parameters<Page['emulateMedia']>[0]) : null;
}

/**
 * Cookies through `addCookies`; localStorage through an init script that fills in keys the
 * origin does not have yet (Playwright seeds them once at context creation, which is past).
 */
async function applyStorageState(
  context: BrowserContext,
  storageState: NonNullable<BrowserContextOptions['storageState']>,
): Promise<void> {
  const state: StorageState =
    typeof storageState === 'string'
      ? (JSON.parse(await nodeFsPromises().readFile(storageState, 'utf8')) as StorageState)
      : (storageState as StorageState);
  if (state.cookies?.length) await context.addCookies(state.cookies);
  const origins = (state.origins ?? []).filter((o) => o.localStorage?.length);
  if (origins.length) {
    await context.addInitScript((all: NonNullable<StorageState['origins']>) => {
      const mine = all.find((o) => o.origin === globalThis.location?.origin);
      if (!mine) return;
      for (const { name, value } of mine.localStorage) {
        if (globalThis.localStorage.getItem(name) === null)
          globalThis.localStorage.setItem(name, value);
      }
    }, origins);
  }
}

/**
 * `toHaveURL`, `waitForURL` and client-side route matching read the context's `baseURL` from the
 * client object; the default context was created without one.
 */
function setBaseURL(context: BrowserContext, baseURL: string): void {
  const internal = context as unknown as { _options?: Record<string, unknown> };
  if (internal._options && typeof internal._options === 'object')
    internal._options.baseURL = baseURL;
}

/** `page.goto('/path')` resolves against `baseURL` like it does in a context created with one. */
function resolveGotoAgainst(page: Page, baseURL: string): void {
  const goto = page.goto;
  page.goto = function gotoWithBaseURL(this: Page, url: string, options?) {
    return goto.call(page, resolveURL(baseURL, url), options);
  } as Page['goto'];
}

/** Playwright's own rule (constructURLBasedOnBaseURL): a URL that does not parse is left alone. */
export function resolveURL(baseURL: string, url: string): string {
  try {
    return new URL(url, baseURL).toString();
  } catch {
    return url;
  }
}
