/** The option → wire mapping that preflight and create both read. */
import { describe, expect, it } from 'vitest';
import { toValidateParams, toWireSession } from '../../src/launch/to-wire.js';

describe('options to the wire', () => {
  const every = {
    country: 'us',
    region: 'ca',
    city: 'la',
    zip: '90001',
    isp: 'comcast',
    protocol: 'socks5',
    connectionType: 'mobile',
    sessionType: 'rotating',
    filterMode: 'speed',
    ipv4Only: false,
    extraStealth: true,
    captchaSolver: false,
    cloudflareWebBotAuth: true,
    adBlocker: false,
    popupBlocker: true,
    remoteHeadless: false,
    maxDurationMinutes: 0,
    idleTimeoutMinutes: 5,
    profileId: 'p-1',
  } as const;

  it('copies every set session option to its wire name, false and 0 included', () => {
    expect(toWireSession({ ...every, profile: 'shop', token: 'secret' } as never)).toEqual({
      country: 'us',
      region: 'ca',
      city: 'la',
      zip: '90001',
      isp: 'comcast',
      protocol: 'socks5',
      connection_type: 'mobile',
      session_type: 'rotating',
      filter_mode: 'speed',
      ipv4_only: false,
      extra_stealth: true,
      captcha_solver: false,
      cloudflare_web_bot_auth: true,
      ad_blocker: false,
      popup_blocker: true,
      headless: false,
      max_duration_minutes: 0,
      idle_timeout_minutes: 5,
      profile_id: 'p-1',
    });
    // Strict: an unset option is absent from the wire body, not sent as undefined.
    expect(toWireSession({ country: undefined, zip: '1' })).toStrictEqual({ zip: '1' });
  });

  it('validate reads the whole targeting: its nine string fields, city, zip and isp included', () => {
    expect(toValidateParams(toWireSession(every))).toEqual({
      connection_type: 'mobile',
      session_type: 'rotating',
      protocol: 'socks5',
      country: 'us',
      region: 'ca',
      city: every.city,
      zip: every.zip,
      isp: every.isp,
      filter_mode: 'speed',
    });
    expect(toValidateParams({ country: 1 as never, region: 'ca' })).toEqual({ region: 'ca' });
  });
});
