/**
 * The connector's options: camelCase like Playwright's own, converted to the service's wire
 * names in one place (to-wire.ts).
 */
import type { BrowserApi } from '../browser-api/index.js';
import type { GeoOption } from '../remote-cdp/geo-resolve.js';

export interface RemoteSessionOptions {
  /** Exit country, lowercase ISO code from the location endpoints (e.g. `us`). Default: a broad exit. */
  country?: string;
  /** Exit region code (needs `country`). Default: none. */
  region?: string;
  /** Exit city code (e.g. `los_angeles`, not its display name; needs `country`). Default: none. */
  city?: string;
  /** Exit zip code. Default: none. */
  zip?: string;
  /** Exit ISP code (e.g. `comcast`, not its display name; needs `country`). Default: none. */
  isp?: string;
  /** Proxy protocol. Default (service): `http`. */
  protocol?: 'http' | 'socks5';
  /** Default (service): `residential`. */
  connectionType?: 'residential' | 'mobile';
  /** `sticky` keeps the IP, `rotating` changes it per connection, `no_rotating` pins it. Default (service): `sticky`. */
  sessionType?: 'sticky' | 'rotating' | 'no_rotating';
  /** IP filtering. Default (service): `quality`. */
  filterMode?: 'quality' | 'quality_speed' | 'speed' | 'none';
  /** Default (service): false. */
  ipv4Only?: boolean;
  /** Anti-detection hardening. Default: the service's. */
  extraStealth?: boolean;
  /** Default: the service's. */
  captchaSolver?: boolean;
  /** Default: the service's. */
  cloudflareWebBotAuth?: boolean;
  /** Default: the service's. */
  adBlocker?: boolean;
  /** Default: the service's. */
  popupBlocker?: boolean;
  /** The remote browser's own headless flag (not Playwright's `headless`). Default: the service's. */
  remoteHeadless?: boolean;
  /** Session lifetime cap in minutes; 0 = the account limit. Default: the account limit (30). */
  maxDurationMinutes?: number;
  /** Minutes without CDP traffic before the service ends the session; 0 = account limit. Default: 10. */
  idleTimeoutMinutes?: number;
  /**
   * A saved profile by name (cookies, storage, cache; optionally a pinned IP), created on first
   * use with `store_cache: true`. Pass an object to choose the create-time options.
   */
  profile?: string | ProfileSpec;
  /** A saved profile by id (no find-or-create). */
  profileId?: string;
}

export interface ProfileSpec {
  name: string;
  /** Persist cookies, storage and cache across sessions (create-time only). Default: true. */
  storeCache?: boolean;
  /** Pin the exit IP from the first session that uses the profile (create-time only). Default: false. */
  pinIp?: boolean;
}

export interface ConnectOptions {
  /** Browser service token. Default: `REMOTE_BROWSER_TOKEN`. */
  token?: string;
  /** Browser service origin. Default: `REMOTE_BROWSER_URL`. */
  baseUrl?: string;
  /** Proxy password. Default: `REMOTE_BROWSER_PROXY_PASSWORD`. */
  proxyPassword?: string;
  /** A client to use instead of one built from the three options above. */
  api?: BrowserApi;
  /**
   * Check the whole targeting (city, zip and isp included) with `/configurations/validate`
   * before creating, so a launch that passes is one the create accepts (cached per config for
   * the life of the `api` client; launches without one share one cache in the process).
   * Locations are codes: a display name (`city: 'Los Angeles'`) is not mapped, it fails here
   * with the code (`los_angeles`) in the suggestion. `'strict'` also checks every location field
   * against the location endpoints (a city only with its region). Default: true.
   */
  preflight?: boolean | 'strict';
  /** Leave the session running on close() (for reconnect flows). Default: false. */
  keepSession?: boolean;
  /**
   * Hosts whose requests the remote browser makes through this machine (Playwright's option
   * syntax: comma-separated host patterns, `*` wildcards, optional `:port`, `<loopback>` for
   * localhost, 127.0.0.1 and [::1]); `''` turns it off. A page that is not on an exposed host
   * cannot reach them except by a top-level navigation (docs/remote.md). Default: `'<loopback>'`.
   */
  exposeNetwork?: string;
  /**
   * When the connection drops without close() and the service says the session still runs, how
   * long it is kept for `connectRemote(sessionOf(browser).id)` to re-attach (pages where they
   * were) before the library deletes it; the exit hooks and the watchdog still cover it meanwhile.
   * 0 deletes it at once. Default: 60000.
   */
  reconnectWindowMs?: number;
  /**
   * Download the session's recordings into `dir` after close() (in the background; await them
   * with `recordingOf(browser)`). Default: no download.
   */
  recording?: {
    /** The directory the recordings are saved into (created if missing). */
    dir: string;
    /** Max ms to wait for publication + download. Default: 120000. */
    timeout?: number;
  };
  /**
   * Make the browser's clock, language and position agree with the session's exit: `'exit'`
   * derives the IANA time zone, the locale (`navigator.language(s)`, `Intl`'s default locale,
   * `Accept-Language`) and a geolocation near the exit from the session's resolved targeting,
   * on every page, frame and worker; the values you set yourself (Playwright's `timezoneId`,
   * `locale`, `geolocation`, Puppeteer's `emulateTimezone()`/`setGeolocation()`) win per field.
   * `false` leaves the browser as the service made it; an object sets values explicitly (a field
   * left out is still derived from the exit). The geolocation permission is not granted
   * (docs/geo.md). Default: `'exit'`.
   */
  geo?: GeoOption;
  /**
   * The largest download brought from the remote browser to this machine, in bytes. A download
   * over it fails (`download.failure()` says why, `saveAs()` rejects with the reason) and its
   * partial file is removed: a web page cannot fill this machine's disk (docs/security.md).
   * Default: 1 GiB.
   */
  maxDownloadBytes?: number;
  /** When the account's session limit is hit (429), wait for a free slot instead of failing. Default: true. */
  waitForSlot?: boolean;
  /** Aborts the launch (create, queue wait and connect); a created session is deleted. */
  signal?: AbortSignal;
  /** Ms for the whole launch, a wait for a free slot included. Default: 180000 (Playwright's launch default). */
  timeout?: number;
}

export type LaunchRemoteOptions = RemoteSessionOptions & ConnectOptions;

export const DEFAULT_LAUNCH_TIMEOUT = 180_000;
