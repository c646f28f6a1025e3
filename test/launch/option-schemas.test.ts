import { describe, expect, it } from 'vitest';
import { isRequestValidationError } from '../../src/http/errors.js';
import { LAUNCH_SCHEMAS } from '../../src/launch/option-schemas.js';
import { parseEntry } from '../../src/launch/parse-options.js';

/** The error thrown by `fn`, or a failure when it throws none. */
function rejection(fn: () => unknown): Error & { field: string; issues: { path: string }[] } {
  try {
    fn();
  } catch (error) {
    expect(isRequestValidationError(error), String(error)).toBe(true);
    return error as Error & { field: string; issues: { path: string }[] };
  }
  throw new Error('accepted');
}

const launch = (options: unknown) =>
  parseEntry('launchRemote', LAUNCH_SCHEMAS.playwrightLaunch, options, {
    unknownKeyHint: 'use the drop-in',
  });

describe('launchRemote options', () => {
  it('accepts every documented option with a valid value', () => {
    const options = {
      country: 'us',
      region: 'ca',
      city: 'los_angeles',
      protocol: 'socks5',
      connectionType: 'mobile',
      sessionType: 'rotating',
      filterMode: 'none',
      ipv4Only: true,
      maxDurationMinutes: 0,
      idleTimeoutMinutes: 5,
      profile: { name: 'shop', storeCache: true, pinIp: false },
      preflight: 'strict',
      keepSession: false,
      recording: { dir: '/tmp/rec', timeout: Number.POSITIVE_INFINITY },
      waitForSlot: false,
      signal: new AbortController().signal,
      timeout: 0,
      slowMo: 5,
      extraContexts: 'allow',
      exposeNetwork: '<loopback>,*.dev.test:8080',
    };
    expect(launch(options)).toMatchObject({ country: 'us', profile: { name: 'shop' } });
  });

  it('rejects an invalid exposeNetwork naming the option, the entry and the rule', () => {
    const error = rejection(() => launch({ exposeNetwork: 'localhost,http://dev.test' }));
    expect(error.issues.map((i) => i.path)).toEqual(['exposeNetwork']);
    expect(error.message).toContain('exposeNetwork');
    expect(error.message).toContain('entry 2 "http://dev.test" is not a host pattern');
    expect(error.message).toContain('comma-separated hosts with optional * wildcards and :port');
  });

  it('names an unknown key and says where local options go', () => {
    const error = rejection(() => launch({ executablePath: '/usr/bin/chromium', headless: true }));
    expect(error.issues.map((i) => i.path)).toEqual(['executablePath', 'headless']);
    expect(error.message).toMatch(
      /executablePath: is not an option of this call \(use the drop-in\)/,
    );
  });

  it.each([
    [{ timeout: -1 }, 'timeout', /must be a number of ms >= 0/],
    [{ timeout: '5s' }, 'timeout', /got "5s"/],
    [{ waitForSlot: 'no' }, 'waitForSlot', /must be a boolean \(got "no"\)/],
    [
      { preflight: 'strictest' },
      'preflight',
      /must be true, false or "strict" \(got "strictest"\)/,
    ],
    [{ recording: 'yes' }, 'recording', /must be an object/],
    [{ recording: { dir: '' } }, 'recording.dir', /must not be empty/],
    [{ profile: 123 }, 'profile', /must be a profile name .* \(got 123\)/],
    [{ profile: '' }, 'profile', /must not be empty/],
    [{ profile: 'x'.repeat(101) }, 'profile', /at most 100 characters/],
    [{ profile: { name: 1 } }, 'profile.name', /must be a string/],
    [{ region: 'ca' }, 'region', /needs `country`/],
    [{ city: 'paris' }, 'city', /needs `country`/],
    [{ isp: 'comcast' }, 'isp', /needs `country`/],
    [{ profile: 'a', profileId: 'b' }, 'profileId', /cannot be combined with `profile`/],
    [{ filterMode: 'fast' }, 'filterMode', /must be one of quality, quality_speed, speed, none/],
    [{ signal: 'stop' }, 'signal', /must be an AbortSignal/],
    [{ extraContexts: 'never' }, 'extraContexts', /must be one of warn, error, allow/],
    ['us', 'options', /must be an object \(got "us"\)/],
  ])('%j is an error naming %s', (options, field, message) => {
    const error = rejection(() => launch(options));
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
    expect(error.message).toMatch(/^launchRemote: invalid options: /);
  });

  it('shows only the type of a credential that is not a string', () => {
    const error = rejection(() => launch({ token: 12345678, proxyPassword: ['hunter2'] }));
    expect(error.message).toContain('token: must be a string (got number)');
    expect(error.message).toContain('proxyPassword: must be a string (got object)');
    expect(error.message).not.toContain('hunter2');
  });
});

describe('the other entries', () => {
  it('connectRemote names the session id and the options by their own names', () => {
    const schema = LAUNCH_SCHEMAS.puppeteerConnect;
    const args = (sessionId: unknown, options: unknown) =>
      rejection(() =>
        parseEntry('connectRemote', schema, { sessionId, options }, { relativeTo: 'options' }),
      );
    expect(args('  ', {}).field).toBe('sessionId');
    expect(args('s', { keepSession: 'yes' }).field).toBe('keepSession');
    expect(args('s', { defaultViewport: 'big' }).message).toMatch(
      /defaultViewport: must be `null` or `\{ width, height \}`/,
    );
  });

  it('the drop-ins accept local options but check the ones they map and `remote`', () => {
    const chromium = (options: unknown) =>
      parseEntry('chromium.launch', LAUNCH_SCHEMAS.chromiumLaunch, options);
    expect(
      chromium({ executablePath: '/x', channel: 'chrome', remote: { strict: true } }),
    ).toBeTruthy();
    expect(rejection(() => chromium({ remote: { strict: 'yes' } })).field).toBe('remote.strict');
    expect(rejection(() => chromium({ remote: { waitForSlot: 'no' } })).field).toBe(
      'remote.waitForSlot',
    );
    expect(rejection(() => chromium({ remote: { executablePath: '/x' } })).field).toBe(
      'remote.executablePath',
    );
    expect(rejection(() => chromium({ remote: 'us' })).message).toMatch(
      /remote: must be an object/,
    );
    const puppeteer = (options: unknown) =>
      parseEntry('puppeteer.launch', LAUNCH_SCHEMAS.puppeteerDropIn, options);
    expect(puppeteer({ headless: 'new', dumpio: true, userDataDir: './data' })).toBeTruthy();
    expect(rejection(() => puppeteer({ defaultViewport: { width: 0, height: 1 } })).field).toBe(
      'defaultViewport.width',
    );
  });

  it('defineRemoteConfig checks its options and every use.remote', () => {
    const define = (config: unknown, options: unknown = {}) =>
      rejection(() =>
        parseEntry('defineRemoteConfig', LAUNCH_SCHEMAS.defineRemoteConfig, { config, options }),
      );
    expect(define({}, { reap: 'no' }).field).toBe('options.reap');
    expect(define({}, { emulator: 'yes' }).message).toMatch(/true, false, 'auto'/);
    expect(define({ projects: [{ use: { remote: { prewarm: -1 } } }] }).field).toBe(
      'config.projects.0.use.remote.prewarm',
    );
    expect(define({ use: { remote: { token: 't' } } }).field).toBe('config.use.remote.token');
    expect(
      parseEntry('defineRemoteConfig', LAUNCH_SCHEMAS.defineRemoteConfig, {
        config: { use: { remote: { sessionScope: 'test', prewarm: 2, country: 'us' } } },
        options: { emulator: { ffmpegPath: false } },
      }),
    ).toBeTruthy();
  });
});
