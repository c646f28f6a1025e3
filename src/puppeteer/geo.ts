/**
 * `geo` on a Puppeteer browser (issue 35). Puppeteer attaches to every target with
 * `waitForDebuggerOnStart` and resumes it on the target's own session; the overrides are sent on
 * that same session the moment it is attached (the connection's `sessionattached`, emitted
 * before Puppeteer sends anything on it), so they reach the target before its first script, cost
 * no round trip, and a later `page.emulateTimezone()`/`setGeolocation()` of the user replaces
 * them on the same session (the user's values win). The targets Puppeteer attached before we
 * could listen (the session's own tab) get them on their sessions as well, before the launch
 * returns; the service workers Puppeteer lets go get a session of ours (remote-cdp/geo-overrides.ts).
 */
import type { Browser, CDPSession, Connection, Page } from 'puppeteer-core';
import { sessionOf } from '../launch/browser-registry.js';
import type { CdpChannel } from '../remote-cdp/cdp-channel.js';
import {
  CHECK_REQUEST,
  compareGeo,
  type GeoCheck,
  readPage,
  sentAcceptLanguage,
} from '../remote-cdp/geo-check.js';
import { applyGeoToTargets, geoCommands, sendGeo } from '../remote-cdp/geo-overrides.js';
import type { GeoOption } from '../remote-cdp/geo-resolve.js';
import { resolveGeo } from '../remote-cdp/geo-resolve.js';
import { remoteCdpFor } from '../remote-cdp/remote-features.js';
import { ownSessionOf } from './transfers.js';

export interface PuppeteerGeoInput {
  /** The session's resolved targeting, once the connection lookup (alongside the connect) has it. */
  config: Promise<Record<string, unknown>>;
  profile?: Record<string, unknown>;
  /** `geo` as the user passed it. Default: `'exit'`. */
  option: GeoOption | undefined;
}

/** A session's target type, which Puppeteer keeps private on the session (`tab`, `page`, …). */
function typeOf(session: CDPSession): string | undefined {
  const target = (session as unknown as { target?: () => { type(): string } | undefined }).target;
  try {
    return target?.call(session)?.type();
  } catch {
    return undefined;
  }
}

export async function startGeo(
  browser: Browser,
  connection: Promise<Connection>,
  open: () => Promise<CdpChannel>,
  input: PuppeteerGeoInput,
): Promise<void> {
  if (input.option === false) return;
  const geo = await resolveGeo(input.option ?? 'exit', await input.config, input.profile);
  if (!geo || (!geo.timezoneId && !geo.locale && !geo.geolocation)) return;
  const cdp = await remoteCdpFor(browser, open);

  for (const target of browser.targets()) {
    const session = ownSessionOf(target);
    if (session)
      void sendGeo(session, geoCommands(geo, target.type() === 'other' ? '' : target.type()));
  }
  (await connection).on('sessionattached', (session: CDPSession) => {
    // The type is not known yet at this moment for every session (a tab's page): a page's
    // commands on a tab are refused, harmlessly; a worker's are its own.
    const type = typeOf(session) ?? 'page';
    void sendGeo(session, geoCommands(geo, type));
  });
  const stop = await applyGeoToTargets(cdp, geo, {
    covers: (t) => t.type === 'service_worker',
  });
  browser.once('disconnected', () => {
    void stop().finally(() => cdp.close());
  });
}

/** The query a check's own request carries, so it is told apart from the page's. */

/**
 * Whether `page` reports a clock, language and position that agree with its session's exit
 * (`sessionOf(browser).config`): the time zone by `Intl` and by `Date`, `navigator.language(s)`,
 * the `Accept-Language` a request of the page carries (one `HEAD` to its own origin), the `Intl`
 * locale and, with the geolocation permission, the position. See docs/geo.md.
 */
export async function checkGeo(page: Page): Promise<GeoCheck> {
  const info = sessionOf(page.browser());
  await info.refresh();
  const exit = (await resolveGeo('exit', info.config)) ?? { source: {} };
  const seen = await page.evaluate(readPage);
  let acceptLanguage: string | undefined;
  if (/^https?:/.test(page.url())) {
    // The header as sent (the network stack adds Accept-Language after requestWillBeSent), on
    // Puppeteer's own session of the page: a session of ours would take geo's overrides with it.
    const session = ownSessionOf(page.target());
    if (session) {
      acceptLanguage = await sentAcceptLanguage(
        (onSent, onExtra) => {
          session.on('Network.requestWillBeSent', onSent);
          session.on('Network.requestWillBeSentExtraInfo', onExtra);
          return () => {
            session.off('Network.requestWillBeSent', onSent);
            session.off('Network.requestWillBeSentExtraInfo', onExtra);
          };
        },
        () => page.evaluate(CHECK_REQUEST),
      );
    }
  }
  return compareGeo(exit, seen, acceptLanguage);
}
