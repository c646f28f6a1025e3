/**
 * Each launch entry's schema, read through parseEntry(): what each entry accepts, and each rule
 * with its field and wording (the entry-by-entry blocks: issue 18's mutation pass). The schemas
 * are built once per module on first use (issue 14, P6), so every test here loads the modules
 * afresh: a rule is then checked by the test that names it, not only by whichever test built
 * the schemas first in the file.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { isRequestValidationError } from '../../src/http/errors.js';

type Schemas = typeof import('../../src/launch/option-schemas.js')['LAUNCH_SCHEMAS'];
type Entry = keyof Schemas;

let schemas: Schemas;
let parseEntry: typeof import('../../src/launch/parse-options.js')['parseEntry'];

beforeEach(async () => {
  vi.resetModules();
  schemas = (await import('../../src/launch/option-schemas.js')).LAUNCH_SCHEMAS;
  parseEntry = (await import('../../src/launch/parse-options.js')).parseEntry;
});

interface Rejection {
  name: string;
  message: string;
  field: string;
  issues: { path: string; message: string }[];
}

/** The error thrown by `fn`, or a failure when it throws none. */
function rejection(fn: () => unknown): Rejection {
  try {
    fn();
  } catch (error) {
    expect(isRequestValidationError(error), String(error)).toBe(true);
    return error as Rejection;
  }
  throw new Error('accepted');
}

const parse = (entry: Entry, input: unknown, relativeTo?: string) =>
  parseEntry(entry, schemas[entry], input, relativeTo ? { relativeTo } : {});

/** The one issue of a rejected input, as `path: message`. */
const issueOf = (entry: Entry, input: unknown, relativeTo?: string) =>
  rejection(() => parse(entry, input, relativeTo)).issues.map((i) => `${i.path}: ${i.message}`);

const launch = (options: unknown) =>
  parseEntry('launchRemote', schemas.playwrightLaunch, options, {
    unknownKeyHint: 'use the drop-in',
  });

const browserType = { connectOverCDP: async () => ({}) };

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
      maxDownloadBytes: 64 * 1024 * 1024,
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
    [{ maxDownloadBytes: 0 }, 'maxDownloadBytes', /must be > 0 \(got 0\)/],
    [{ maxDownloadBytes: 1.5 }, 'maxDownloadBytes', /must be an integer \(got 1.5\)/],
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
    const schema = schemas.puppeteerConnect;
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
      parseEntry('chromium.launch', schemas.chromiumLaunch, options);
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
      parseEntry('puppeteer.launch', schemas.puppeteerDropIn, options);
    expect(puppeteer({ headless: 'new', dumpio: true, userDataDir: './data' })).toBeTruthy();
    expect(rejection(() => puppeteer({ defaultViewport: { width: 0, height: 1 } })).field).toBe(
      'defaultViewport.width',
    );
  });

  it('defineRemoteConfig checks its options and every use.remote', () => {
    const define = (config: unknown, options: unknown = {}) =>
      rejection(() =>
        parseEntry('defineRemoteConfig', schemas.defineRemoteConfig, { config, options }),
      );
    expect(define({}, { reap: 'no' }).field).toBe('options.reap');
    expect(define({}, { emulator: 'yes' }).message).toMatch(/true, false, 'auto'/);
    expect(define({ projects: [{ use: { remote: { prewarm: -1 } } }] }).field).toBe(
      'config.projects.0.use.remote.prewarm',
    );
    expect(define({ use: { remote: { token: 't' } } }).field).toBe('config.use.remote.token');
    expect(
      parseEntry('defineRemoteConfig', schemas.defineRemoteConfig, {
        config: { use: { remote: { sessionScope: 'test', prewarm: 2, country: 'us' } } },
        options: { emulator: { ffmpegPath: false } },
      }),
    ).toBeTruthy();
  });
});

describe('launchRemote (Playwright)', () => {
  it('accepts a BrowserType and each extraContexts mode', () => {
    for (const extraContexts of ['warn', 'error', 'allow']) {
      expect(parse('playwrightLaunch', { browserType, extraContexts })).toMatchObject({
        extraContexts,
      });
    }
  });

  it.each([
    [{}, "a Playwright BrowserType (e.g. the runner's own `playwright.chromium`) (got an object)"],
    [null, "a Playwright BrowserType (e.g. the runner's own `playwright.chromium`) (got null)"],
  ])('browserType %j is refused by its rule', (value, rule) => {
    expect(issueOf('playwrightLaunch', { browserType: value })).toEqual([
      `browserType: must be ${rule}`,
    ]);
  });

  it('api must be a client, and null says so instead of throwing', () => {
    expect(parse('playwrightLaunch', { api: { sessions: {} } })).toBeTruthy();
    expect(issueOf('playwrightLaunch', { api: 3 })).toEqual([
      'api: must be a BrowserApi client (got 3)',
    ]);
    expect(issueOf('playwrightLaunch', { api: null })).toEqual([
      'api: must be a BrowserApi client (got null)',
    ]);
  });

  it('signal: the rule and what was passed', () => {
    expect(issueOf('playwrightLaunch', { signal: 'stop' })).toEqual([
      'signal: must be an AbortSignal (e.g. AbortSignal.timeout(5000)) (got "stop")',
    ]);
  });

  it('slowMo is a delay >= 0', () => {
    expect(issueOf('playwrightLaunch', { slowMo: -1 })).toEqual(['slowMo: must be >= 0 (got -1)']);
  });
});

describe('launchRemote (Puppeteer)', () => {
  it('accepts the session options and its own', () => {
    const options = {
      country: 'us',
      defaultViewport: {
        width: 800,
        height: 600,
        deviceScaleFactor: 2,
        isMobile: true,
        isLandscape: false,
        hasTouch: true,
      },
      protocolTimeout: 0,
      slowMo: 1,
      targetFilter: () => true,
      acceptInsecureCerts: true,
    };
    expect(parse('puppeteerLaunch', options)).toMatchObject({ country: 'us' });
    expect(parse('puppeteerLaunch', { defaultViewport: null })).toEqual({ defaultViewport: null });
  });

  it('checks the viewport field by field', () => {
    expect(issueOf('puppeteerLaunch', { defaultViewport: { width: 800.5, height: 600 } })).toEqual([
      'defaultViewport.width: must be an integer (got 800.5)',
    ]);
    expect(
      issueOf('puppeteerLaunch', { defaultViewport: { width: 1, height: 1, zoom: 2 } }),
    ).toEqual(['defaultViewport.zoom: is not an option of this call']);
  });

  it('refuses the Playwright-only options', () => {
    expect(issueOf('puppeteerLaunch', { browserType })).toEqual([
      'browserType: is not an option of this call',
    ]);
  });
});

describe('connectRemote', () => {
  it('the session id is a non-empty string once trimmed, of any length', () => {
    expect(parse('playwrightConnect', { sessionId: 'sess-123456', options: {} })).toEqual({
      sessionId: 'sess-123456',
      options: {},
    });
    expect(issueOf('puppeteerConnect', { sessionId: '   ', options: {} })).toEqual([
      'sessionId: must not be empty',
    ]);
    expect(
      issueOf('playwrightConnect', { sessionId: 's', options: { extraContexts: 'x' } }, 'options'),
    ).toEqual(['extraContexts: must be one of warn, error, allow (got "x")']);
  });

  it('options that are not an object are named as `options`', () => {
    expect(
      rejection(() => parse('playwrightConnect', { sessionId: 's', options: 'us' }, 'options'))
        .field,
    ).toBe('options');
  });
});

describe('the drop-ins', () => {
  it('chromium.launch checks remote (drop-in options included), headless, timeout, slowMo, args', () => {
    expect(
      parse('chromiumLaunch', { remote: { strict: true, userDataDir: 'profile' }, channel: 'x' }),
    ).toBeTruthy();
    expect(issueOf('chromiumLaunch', { headless: 'yes' })).toEqual([
      'headless: must be true, false or \'shell\' (got "yes")',
    ]);
    expect(issueOf('chromiumLaunch', { args: '--x' })).toEqual([
      'args: must be an array (got "--x")',
    ]);
    expect(issueOf('chromiumLaunch', { remote: { userDataDir: 'keep' } })).toEqual([
      'remote.userDataDir: must be one of ignore, profile (got "keep")',
    ]);
    expect(issueOf('chromiumLaunch', { remote: { region: 'ca' } })).toEqual([
      'remote.region: needs `country` (a region is looked up within its country)',
    ]);
  });

  it('chromium.launchPersistentContext names its directory argument', () => {
    expect(issueOf('chromiumPersistent', { userDataDir: 5, options: {} })).toEqual([
      'userDataDir: must be a string (got 5)',
    ]);
  });

  it('puppeteer.launch checks its mapped options and remote, drop-in options included', () => {
    expect(
      parse('puppeteerDropIn', {
        remote: { strict: false, userDataDir: 'ignore', defaultViewport: null },
        browser: 'chrome',
        headless: 'shell',
      }),
    ).toBeTruthy();
    expect(issueOf('puppeteerDropIn', { browser: 'safari' })).toEqual([
      'browser: must be one of chrome, firefox (got "safari")',
    ]);
    expect(issueOf('puppeteerDropIn', { targetFilter: 'x' })).toEqual([
      'targetFilter: must be a function (got "x")',
    ]);
  });
});

describe('defineRemoteConfig', () => {
  const config = (remote: unknown) => ({ config: { use: { remote } }, options: {} });

  it('accepts every fixture option value', () => {
    for (const remote of [
      { sessionScope: 'worker', recording: 'off', nonChromium: 'error', prewarm: false },
      { sessionScope: 'test', recording: 'on', nonChromium: 'local', prewarm: 0 },
      { recording: 'retain-on-failure', prewarm: 3, launchTimeout: 0, recordingTimeout: 1 },
      { preflight: 'strict', waitForSlot: false, country: 'us', city: 'la' },
    ]) {
      expect(parse('defineRemoteConfig', config(remote)), JSON.stringify(remote)).toBeTruthy();
    }
  });

  it.each([
    [
      { sessionScope: 'suite' },
      'config.use.remote.sessionScope: must be one of worker, test (got "suite")',
    ],
    [
      { recording: 'always' },
      'config.use.remote.recording: must be one of off, on, retain-on-failure (got "always")',
    ],
    [
      { nonChromium: 'skip' },
      'config.use.remote.nonChromium: must be one of error, local (got "skip")',
    ],
    [
      { prewarm: true },
      'config.use.remote.prewarm: must be false or a whole number >= 0 (got true)',
    ],
    [{ prewarm: 1.5 }, 'config.use.remote.prewarm: must be false or a whole number >= 0 (got 1.5)'],
    [{ token: 't' }, 'config.use.remote.token: is not an option of this call'],
    [
      { city: 'la' },
      'config.use.remote.city: needs `country` (a city is looked up within its country)',
    ],
  ])('use.remote %j: %s', (remote, issue) => {
    expect(issueOf('defineRemoteConfig', config(remote))).toEqual([issue]);
  });
});

describe('rules between session options', () => {
  it('a profile id alone, or a profile alone, is fine; both together are not', () => {
    expect(parse('playwrightLaunch', { profileId: 'p-1' })).toEqual({ profileId: 'p-1' });
    expect(parse('playwrightLaunch', { profile: 'shop' })).toEqual({ profile: 'shop' });
    expect(issueOf('playwrightLaunch', { profile: 'shop', profileId: 'p-1' })).toEqual([
      'profileId: cannot be combined with `profile`: pass a profile by name or by id, not both',
    ]);
  });

  it('region, city, zip and isp each need a country', () => {
    expect(
      parse('puppeteerLaunch', { country: 'us', region: 'ca', city: 'la', zip: '1', isp: 'x' }),
    ).toBeTruthy();
    expect(issueOf('puppeteerLaunch', { zip: '90001', isp: 'comcast' })).toEqual([
      'zip: needs `country` (a zip is looked up within its country)',
      'isp: needs `country` (a isp is looked up within its country)',
    ]);
  });
});
