/**
 * `geo` on a Playwright browser (issue 35). Two ways in, because Playwright lends no session of
 * its own for a target:
 *
 * - new contexts (`browser.newContext()`, `browser.newPage()`, the fixture's worker scope):
 *   Playwright's own `timezoneId`, `locale` and `geolocation` options, filled in where the user
 *   left them out, so Playwright applies them to every page, popup, frame and worker from its
 *   first script, and a value the user passed wins per field. Playwright's `locale` makes
 *   `navigator.languages` and `Accept-Language` that one locale (`de-DE`), consistently in
 *   documents, fetches and workers; the country's longer list is the default context's.
 * - the session's own (default) context, which exists before we connect: a session of ours on
 *   each of its targets (remote-cdp/geo-overrides.ts), the ones there now before the launch
 *   returns and each new one as it appears; the tab's dedicated and service workers are held by
 *   Chromium until ours are set (before their first script). A popup or new tab is attached when
 *   Chromium announces it, alongside Playwright's own set-up: its time zone and `Intl` locale
 *   are its opener's process's from the first script, its `navigator.language(s)` ours once
 *   attached; its `Accept-Language` is the context's extra header from its first request. Fields
 *   the user sets later themselves (`context.setGeolocation()`, `setExtraHTTPHeaders()`) replace
 *   ours.
 */
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { createDebug } from '../http/debug.js';
import { sessionOf } from '../launch/browser-registry.js';
import { CHECK_MARK, compareGeo, type GeoCheck, readPage } from '../remote-cdp/geo-check.js';
import { applyGeoToTargets, type GeoField } from '../remote-cdp/geo-overrides.js';
import type { GeoOption, ResolvedGeo } from '../remote-cdp/geo-resolve.js';
import { resolveGeo } from '../remote-cdp/geo-resolve.js';
import type { RemoteCdp } from '../remote-cdp/remote-cdp.js';

const debug = createDebug('geo');

export interface PlaywrightGeoInput {
  /** The session's resolved targeting and, when launched with a profile by name, that profile. */
  /** The session's resolved targeting, once the connection lookup (alongside the connect) has it. */
  config: Promise<Record<string, unknown>>;
  profile?: Record<string, unknown>;
  /** `geo` as the user passed it. Default: `'exit'`. */
  option: GeoOption | undefined;
  /**
   * Fields the user set for the default context (the fixture's `use`, the drop-in's context
   * options): geo leaves them to the user.
   */
  own?: ReadonlySet<GeoField>;
}

/** The exit's values for `input`, or undefined when geo is off or derives nothing. */
async function geoOf(input: PlaywrightGeoInput): Promise<ResolvedGeo | undefined> {
  if (input.option === false) return undefined;
  const geo = await resolveGeo(input.option ?? 'exit', await input.config, input.profile);
  if (!geo || (!geo.timezoneId && !geo.locale && !geo.geolocation)) return undefined;
  return geo;
}

/**
 * Geo on the session's own (default) context, on the features' connection `cdp` alongside the
 * library's connect (it needs no Playwright browser): resolves once the targets there have their
 * overrides, which then cost the launch no round trip after the connect (P1). The sessions end
 * with the features' connection.
 */
export async function startDefaultContextGeo(
  cdp: Promise<RemoteCdp>,
  input: PlaywrightGeoInput,
): Promise<void> {
  const geo = await geoOf(input);
  if (!geo) return;
  const host = await cdp;
  // The targets are known once target discovery (in the setup batch) has answered.
  await host.ready();
  // The default context is the one the session's own tab lives in.
  const defaultIds = new Set(
    [...host.targets.values()]
      .filter((t) => t.type === 'page' && t.browserContextId !== undefined)
      .map((t) => t.browserContextId),
  );
  const own = input.own ?? new Set<GeoField>();
  await applyGeoToTargets(host, geo, {
    covers: (t) => defaultIds.has(t.browserContextId),
    own: () => own,
  });
}

/**
 * Geo's Playwright side on the connected `browser`: new contexts get the exit's values, and the
 * default context the country's `Accept-Language` as its extra header (Playwright sets it on every
 * new page before resuming it). Not awaited: Playwright sends it on its own connection before
 * any command of the user's, so it costs no round trip either.
 */
export async function startGeo(browser: Browser, input: PlaywrightGeoInput): Promise<void> {
  const geo = await geoOf(input);
  if (!geo) return;
  fillNewContexts(browser, geo);
  const context = browser.contexts()[0];
  if (context && geo.acceptLanguage && !input.own?.has('locale')) {
    context
      .setExtraHTTPHeaders({ 'Accept-Language': geo.acceptLanguage })
      .catch((error: unknown) => debug(`Accept-Language not set: ${(error as Error).message}`));
  }
}

/** `browser.newContext()` (and so `newPage()`) with the exit's values where the user set none. */
function fillNewContexts(browser: Browser, geo: ResolvedGeo): void {
  const original = browser.newContext;
  // An own property shadows the prototype's; newPage() calls this.newContext() and gets it too.
  browser.newContext = function newContext(this: Browser, options: BrowserContextOptions = {}) {
    return original.call(this, withGeo(options, geo));
  };
}

export function withGeo(options: BrowserContextOptions, geo: ResolvedGeo): BrowserContextOptions {
  const filled: BrowserContextOptions = { ...options };
  if (filled.timezoneId === undefined && geo.timezoneId) filled.timezoneId = geo.timezoneId;
  if (filled.geolocation === undefined && geo.geolocation) filled.geolocation = geo.geolocation;
  if (filled.locale === undefined && geo.locale) filled.locale = geo.locale;
  return filled;
}

/** The query a check's own request carries, so it is told apart from the page's. */

/**
 * Whether `page` reports a clock, language and position that agree with its session's exit
 * (`sessionOf(browser).config`): the time zone by `Intl` and by `Date`, `navigator.language(s)`,
 * the `Accept-Language` a request of the page carries (one `HEAD` to its own origin), the `Intl`
 * locale and, with the geolocation permission, the position. See docs/geo.md.
 */
export async function checkGeo(page: Page): Promise<GeoCheck> {
  const browser = page.context().browser();
  if (!browser) throw new TypeError('checkGeo: the page belongs to no browser');
  const info = sessionOf(browser);
  await info.refresh();
  const exit = (await resolveGeo('exit', info.config)) ?? { source: {} };
  const seen = await page.evaluate(readPage);
  let acceptLanguage: string | undefined;
  if (/^https?:/.test(page.url())) {
    const request = page.waitForRequest((r) => r.url().includes(CHECK_MARK), { timeout: 5000 });
    await page.evaluate(async (mark) => {
      await fetch(`${location.origin}/?${mark}`, { method: 'HEAD', cache: 'no-store' }).catch(
        () => undefined,
      );
    }, CHECK_MARK);
    acceptLanguage = await request.then(
      async (r) => (await r.allHeaders())['accept-language'],
      () => undefined,
    );
  }
  return compareGeo(exit, seen, acceptLanguage);
}
