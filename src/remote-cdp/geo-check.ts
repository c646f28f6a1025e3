/**
 * `checkGeo(page)` (issue 35 item 5): what a detector compares with the exit, read from a page,
 * and whether each value agrees with where the service says the session exits. Library-agnostic:
 * each adapter (src/playwright/geo.ts, src/puppeteer/geo.ts) runs `readPage` in the page and
 * reports the `Accept-Language` a request of the page carried.
 */
import type { CdpEventParams } from './cdp-channel.js';
import type { ResolvedGeo } from './geo-resolve.js';

/** What the page reports (the result of `readPage`). */
export interface PageGeo {
  timeZone: string;
  /** `getTimezoneOffset()` now, minutes west of UTC. */
  offsetMinutes: number;
  intlLocale: string;
  language: string;
  languages: string[];
  /** `navigator.permissions` for geolocation. */
  permission: string;
  position?: { latitude: number; longitude: number; accuracy: number };
}

export type GeoCheckStatus = 'ok' | 'mismatch' | 'skipped';

export interface GeoCheckItem {
  /** `timeZone (Intl)`, `timeZone (Date)`, `navigator.language`, … */
  name: string;
  status: GeoCheckStatus;
  /** What the page said. */
  actual: string;
  /** What agrees with the exit. */
  expected: string;
}

export interface GeoCheck {
  /** True when no value disagrees with the exit (skipped ones do not count). */
  coherent: boolean;
  /** The exit's country as the service reports it (`config.country`, lowercase), if any. */
  exitCountry: string | undefined;
  items: GeoCheckItem[];
  /** One line per disagreement, e.g. `timeZone (Intl): UTC, the exit's is Europe/Berlin`. */
  mismatches: string[];
}

/** Runs in the page (both libraries serialise it): the values detectors read. */
export async function readPage(): Promise<PageGeo> {
  const intl = Intl.DateTimeFormat().resolvedOptions();
  const read: PageGeo = {
    timeZone: intl.timeZone,
    offsetMinutes: new Date().getTimezoneOffset(),
    intlLocale: intl.locale,
    language: navigator.language,
    languages: [...navigator.languages],
    permission: 'unknown',
  };
  try {
    read.permission = (await navigator.permissions.query({ name: 'geolocation' })).state;
  } catch {
    // No permissions API here (an opaque origin): the position is not checked.
  }
  if (read.permission !== 'granted') return read;
  const position = await new Promise<GeolocationPosition | undefined>((resolve) =>
    navigator.geolocation.getCurrentPosition(resolve, () => resolve(undefined), {
      timeout: 5000,
    }),
  );
  if (position) {
    const { latitude, longitude, accuracy } = position.coords;
    read.position = { latitude, longitude, accuracy };
  }
  return read;
}

/** Minutes west of UTC of `timeZone` at `at` (what `getTimezoneOffset()` says there). */
export function offsetOf(timeZone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  const utc = Math.floor(at.getTime() / 1000) * 1000;
  return Math.round((utc - local) / 60_000);
}

function distanceKm(a: { latitude: number; longitude: number }, b: typeof a): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.latitude - a.latitude) * rad) / 2) ** 2 +
    Math.cos(a.latitude * rad) *
      Math.cos(b.latitude * rad) *
      Math.sin(((b.longitude - a.longitude) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/** A locale agrees with the exit when its language is the expected one and its region, if any, the exit's. */
function localeAgrees(actual: string, expected: string): boolean {
  const [language, region] = actual.split('-');
  const [wantLanguage, wantRegion] = expected.split('-');
  return language === wantLanguage && (region === undefined || region === wantRegion);
}

/**
 * Compares what the page said with `exit` (the values `geo: 'exit'` derives for the session),
 * `acceptLanguage` being the header a request of the page carried (undefined: not seen).
 */
export function compareGeo(
  exit: ResolvedGeo,
  page: PageGeo,
  acceptLanguage: string | undefined,
  now = new Date(),
): GeoCheck {
  const items: GeoCheckItem[] = [];
  const add = (name: string, ok: boolean | undefined, actual: string, expected: string) =>
    items.push({
      name,
      status: ok === undefined ? 'skipped' : ok ? 'ok' : 'mismatch',
      actual,
      expected,
    });
  const zone = exit.timezoneId;
  add(
    'timeZone (Intl)',
    zone === undefined ? undefined : page.timeZone === zone,
    page.timeZone,
    zone ?? 'unknown',
  );
  const offset = zone === undefined ? undefined : offsetOf(zone, now);
  add(
    'timeZone (Date)',
    offset === undefined ? undefined : page.offsetMinutes === offset,
    `getTimezoneOffset() ${page.offsetMinutes}`,
    offset === undefined ? 'unknown' : `getTimezoneOffset() ${offset}`,
  );
  const locale = exit.locale;
  const want = locale ?? 'unknown';
  const agrees = (value: string) =>
    locale === undefined ? undefined : localeAgrees(value, locale);
  add('navigator.language', agrees(page.language), page.language, want);
  add(
    'navigator.languages',
    agrees(page.languages[0] ?? ''),
    page.languages.join(','),
    exit.languages?.join(',') ?? want,
  );
  const first = acceptLanguage?.split(',')[0]?.split(';')[0]?.trim();
  add(
    'Accept-Language',
    acceptLanguage === undefined || first === undefined ? undefined : agrees(first),
    acceptLanguage ?? 'not seen',
    exit.acceptLanguage ?? want,
  );
  add('Intl locale', agrees(page.intlLocale), page.intlLocale, want);
  const target = exit.geolocation;
  if (page.position && target) {
    const km = distanceKm(page.position, target);
    add(
      'geolocation',
      km * 1000 <= Math.max(target.accuracy, 1000) * 2,
      `${page.position.latitude.toFixed(3)},${page.position.longitude.toFixed(3)} (${Math.round(km)} km away)`,
      `${target.latitude.toFixed(3)},${target.longitude.toFixed(3)} ±${Math.round(target.accuracy / 1000)} km`,
    );
  } else {
    add(
      'geolocation',
      undefined,
      page.position ? 'a position' : `no position (permission ${page.permission})`,
      target ? 'near the exit' : 'unknown',
    );
  }
  const mismatches = items
    .filter((i) => i.status === 'mismatch')
    .map((i) => `${i.name}: ${i.actual}, the exit's is ${i.expected}`);
  return { coherent: mismatches.length === 0, exitCountry: exit.source.country, items, mismatches };
}

/** The query string that marks the request `sentAcceptLanguage()` waits for. */
export const CHECK_MARK = 'remote-browser-check-geo';
/** Run in the page: one `HEAD` to its own origin, marked. */
export const CHECK_REQUEST = `fetch(location.origin + '/?${CHECK_MARK}', { method: 'HEAD', cache: 'no-store' }).then(() => {}, () => {})`;

/** Network events of one page's session, as `sentAcceptLanguage()` listens to them. */
export type NetworkListen = (
  onSent: (e: CdpEventParams<'Network.requestWillBeSent'>) => void,
  onExtra: (e: CdpEventParams<'Network.requestWillBeSentExtraInfo'>) => void,
) => () => void;

/**
 * The `Accept-Language` of the marked request `fire()` makes (CHECK_REQUEST), as sent: the
 * network stack adds it after `requestWillBeSent`, so it is read from the extra info, which
 * Chromium may also deliver first. Undefined when not seen within `timeoutMs`.
 */
export async function sentAcceptLanguage(
  listen: NetworkListen,
  fire: () => Promise<unknown>,
  timeoutMs = 5000,
): Promise<string | undefined> {
  const marked = new Set<string>();
  let found: (value: string | undefined) => void = () => {};
  const sent = new Promise<string | undefined>((resolve) => {
    found = resolve;
  });
  const timer = setTimeout(() => found(undefined), timeoutMs);
  // The extra info may come before or after the request's own event: whichever is second answers.
  const seen = new Map<string, string>();
  const stop = listen(
    (e) => {
      if (!e.request.url.includes(CHECK_MARK)) return;
      marked.add(e.requestId);
      const header = seen.get(e.requestId);
      if (header !== undefined) found(header);
    },
    (e) => {
      const name = Object.keys(e.headers).find((h) => h.toLowerCase() === 'accept-language');
      if (!name) return;
      const header = String(e.headers[name]);
      if (marked.has(e.requestId)) found(header);
      else seen.set(e.requestId, header);
    },
  );
  try {
    await fire();
    return await sent;
  } finally {
    clearTimeout(timer);
    stop();
  }
}
