/**
 * Each launch entry's schema, rule by rule (issue 18's mutation pass). The schemas are built
 * once per module on first use (issue 14, P6), so every test here loads the modules afresh: a
 * rule is then checked by the test that names it, not only by whichever test built the schemas
 * first in the file.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

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

const parse = (entry: Entry, input: unknown, relativeTo?: string) =>
  parseEntry(entry, schemas[entry], input, relativeTo ? { relativeTo } : {});

function rejection(entry: Entry, input: unknown, relativeTo?: string): Rejection {
  try {
    parse(entry, input, relativeTo);
  } catch (error) {
    expect((error as Error).name).toBe('RequestValidationError');
    return error as Rejection;
  }
  throw new Error(`${entry} accepted ${JSON.stringify(input)}`);
}

/** The one issue of a rejected input, as `path: message`. */
const issueOf = (entry: Entry, input: unknown, relativeTo?: string) =>
  rejection(entry, input, relativeTo).issues.map((i) => `${i.path}: ${i.message}`);

const browserType = { connectOverCDP: async () => ({}) };

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
    expect(rejection('playwrightConnect', { sessionId: 's', options: 'us' }, 'options').field).toBe(
      'options',
    );
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

describe('parseEntry wording', () => {
  it('a union that fits no branch says the rule for the option as a whole', () => {
    expect(issueOf('playwrightLaunch', { profile: 123 })).toEqual([
      'profile: must be a profile name (1-100 characters) or { name, storeCache?, pinIp? } (got 123)',
    ]);
    expect(issueOf('playwrightLaunch', { preflight: 'strictest' })).toEqual([
      'preflight: must be true, false or "strict" (got "strictest")',
    ]);
  });

  it('a union branch of the right type reports its own rule at its own path', () => {
    expect(issueOf('playwrightLaunch', { profile: { name: 'a', pinIp: 'yes' } })).toEqual([
      'profile.pinIp: must be a boolean (got "yes")',
    ]);
  });

  it('the error lists every issue, in schema order, and names the first as its field', () => {
    const error = rejection('playwrightLaunch', { slowMo: -1, waitForSlot: 'no' });
    expect(error.field).toBe('waitForSlot');
    expect(error.message).toBe(
      'playwrightLaunch: invalid options: waitForSlot: must be a boolean (got "no"); slowMo: must be >= 0 (got -1)',
    );
  });

  it('a credential of the wrong type is shown by its type only', () => {
    const error = rejection('playwrightLaunch', { token: 12345678, proxyPassword: ['hunter2'] });
    expect(error.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'token: must be a string (got number)',
      'proxyPassword: must be a string (got object)',
    ]);
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('12345678');
  });

  it('the rules zod cannot word, said in full', () => {
    expect(
      issueOf(
        'puppeteerConnect',
        { sessionId: 's', options: { defaultViewport: 'big' } },
        'options',
      ),
    ).toEqual([
      'defaultViewport: must be `null` or `{ width, height }` in CSS pixels (positive integers) (got "big")',
    ]);
    expect(issueOf('defineRemoteConfig', { config: {}, options: { emulator: 'yes' } })).toEqual([
      'options.emulator: must be true, false, \'auto\' or startEmulator() options (got "yes")',
    ]);
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
