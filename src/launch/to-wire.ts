/** The one place where connector options (camelCase) become the service's wire fields. */
import type { SessionCreateParams } from '../browser-api/index.js';
import type { RemoteSessionOptions } from './options.js';

const FIELDS = {
  country: 'country',
  region: 'region',
  city: 'city',
  zip: 'zip',
  isp: 'isp',
  protocol: 'protocol',
  connectionType: 'connection_type',
  sessionType: 'session_type',
  filterMode: 'filter_mode',
  ipv4Only: 'ipv4_only',
  extraStealth: 'extra_stealth',
  captchaSolver: 'captcha_solver',
  cloudflareWebBotAuth: 'cloudflare_web_bot_auth',
  adBlocker: 'ad_blocker',
  popupBlocker: 'popup_blocker',
  remoteHeadless: 'headless',
  maxDurationMinutes: 'max_duration_minutes',
  idleTimeoutMinutes: 'idle_timeout_minutes',
  profileId: 'profile_id',
} as const satisfies Partial<Record<keyof RemoteSessionOptions, string>>;

export type WireSessionFields = Omit<SessionCreateParams, 'proxy_password'>;

/** Copies the session options that are set to their wire names; everything else is ignored. */
export function toWireSession(options: RemoteSessionOptions): WireSessionFields {
  const out: Record<string, unknown> = {};
  for (const [key, wire] of Object.entries(FIELDS)) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) out[wire] = value;
  }
  return out as WireSessionFields;
}

/** The part of the wire config that `/configurations/validate` checks. */
export function toValidateParams(wire: WireSessionFields): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of [
    'connection_type',
    'session_type',
    'protocol',
    'country',
    'region',
    'filter_mode',
  ] as const) {
    const value = (wire as Record<string, unknown>)[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}
