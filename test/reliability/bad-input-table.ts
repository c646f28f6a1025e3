/**
 * The bad-input table: for every public function, inputs a caller can get wrong, and the field
 * the typed validation error must name. Seeded with the cases of issue 11 §4 (`seed: true`);
 * the rest cover each remaining entry and resource method once or more.
 */

import { AccountApi, SecretRing, verifyWebhook } from '../../src/account-api/index.js';
import { BrowserApi } from '../../src/browser-api/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { defineRemoteConfig } from '../../src/fixture/define-config.js';
import * as playwright from '../../src/playwright/index.js';
import * as puppeteer from '../../src/puppeteer/index.js';

export interface Target {
  /** The counting proxy in front of the emulator: both services' origin. */
  url: string;
  token: string;
  proxyPassword: string;
  apiKey: string;
}

export interface BadInput {
  call: string;
  input: string;
  /** Names the error must mention (its `field`, or its message): any one of them. */
  field: string[];
  /** From issue 11 §4's 84 tried inputs. */
  seed?: boolean;
  run(t: Target): Promise<unknown>;
}

const LONG = (n: number) => 'x'.repeat(n);
const bad = <T>(value: unknown) => value as T;

const browserApi = (t: Target, extra: Record<string, unknown> = {}) =>
  new BrowserApi({ baseUrl: t.url, token: t.token, proxyPassword: t.proxyPassword, ...extra });
const accountApi = (t: Target, extra: Record<string, unknown> = {}) =>
  new AccountApi({ baseUrl: t.url, apiKey: t.apiKey, ...extra });

/** Runs `fn` with a client and closes it whatever happens. */
async function withBrowserApi(t: Target, fn: (api: BrowserApi) => unknown) {
  const api = browserApi(t);
  try {
    return await fn(api);
  } finally {
    await api.close();
  }
}
async function withAccountApi(t: Target, fn: (api: AccountApi) => unknown) {
  const api = accountApi(t);
  try {
    return await fn(api);
  } finally {
    await api.close();
  }
}

const creds = (t: Target) => ({ baseUrl: t.url, token: t.token, proxyPassword: t.proxyPassword });

/** launchRemote rows, run on both libraries. */
const LAUNCH_ROWS: { input: string; field: string[]; seed?: boolean; options: unknown }[] = [
  { input: '{ timeout: -1 }', field: ['timeout'], seed: true, options: { timeout: -1 } },
  { input: '{ timeout: NaN }', field: ['timeout'], seed: true, options: { timeout: Number.NaN } },
  { input: "{ timeout: '5s' }", field: ['timeout'], seed: true, options: { timeout: '5s' } },
  { input: "'us' (a string, not options)", field: ['options'], seed: true, options: 'us' },
  {
    input: "{ executablePath: '/usr/bin/chromium' } (unknown key)",
    field: ['executablePath'],
    seed: true,
    options: { executablePath: '/usr/bin/chromium' },
  },
  {
    input: "{ waitForSlot: 'no' }",
    field: ['waitForSlot'],
    seed: true,
    options: { waitForSlot: 'no' },
  },
  {
    input: "{ preflight: 'strictest' }",
    field: ['preflight'],
    seed: true,
    options: { preflight: 'strictest' },
  },
  {
    input: "{ recording: 'yes' }",
    field: ['recording'],
    seed: true,
    options: { recording: 'yes' },
  },
  { input: '{ token: 42 }', field: ['token'], seed: true, options: { token: 42 } },
  { input: "{ signal: 'stop' }", field: ['signal'], seed: true, options: { signal: 'stop' } },
  { input: '{ profile: 123 }', field: ['profile'], seed: true, options: { profile: 123 } },
  { input: "{ profile: '' }", field: ['profile'], seed: true, options: { profile: '' } },
  { input: '{ country: 123 }', field: ['country'], seed: true, options: { country: 123 } },
  {
    input: '{ maxDurationMinutes: -1 }',
    field: ['maxDurationMinutes', 'max_duration_minutes'],
    seed: true,
    options: { maxDurationMinutes: -1 },
  },
  {
    input: '{ idleTimeoutMinutes: -5 }',
    field: ['idleTimeoutMinutes', 'idle_timeout_minutes'],
    seed: true,
    options: { idleTimeoutMinutes: -5 },
  },
  {
    input: "{ ipv4Only: 'yes' }",
    field: ['ipv4Only', 'ipv4_only'],
    seed: true,
    options: { ipv4Only: 'yes' },
  },
  {
    input: "{ region: 'ca' } without country",
    field: ['region', 'country'],
    seed: true,
    options: { region: 'ca' },
  },
  { input: "{ protocol: 'ftp' }", field: ['protocol'], options: { protocol: 'ftp' } },
  {
    input: "{ filterMode: 'fast' }",
    field: ['filterMode', 'filter_mode'],
    options: { filterMode: 'fast' },
  },
  {
    input: "{ profile: 'a', profileId: 'b' }",
    field: ['profile', 'profileId'],
    options: { profile: 'a', profileId: 'b' },
  },
  {
    input: `{ profile: <101 characters> }`,
    field: ['profile'],
    seed: true,
    options: { profile: LONG(101) },
  },
];

export const BAD_INPUTS: BadInput[] = [
  ...LAUNCH_ROWS.flatMap((row) => [
    {
      call: 'launchRemote (Playwright)',
      input: row.input,
      field: row.field,
      seed: row.seed,
      run: (t: Target) =>
        playwright.launchRemote(
          typeof row.options === 'object'
            ? { ...creds(t), ...(row.options as object) }
            : bad(row.options),
        ),
    },
    {
      call: 'launchRemote (Puppeteer)',
      input: row.input,
      field: row.field,
      seed: row.seed,
      run: (t: Target) =>
        puppeteer.launchRemote(
          typeof row.options === 'object'
            ? { ...creds(t), ...(row.options as object) }
            : bad(row.options),
        ),
    },
  ]),
  {
    call: 'launchRemote (Puppeteer)',
    input: "{ defaultViewport: 'big' }",
    field: ['defaultViewport'],
    seed: true,
    run: (t) => puppeteer.launchRemote({ ...creds(t), defaultViewport: bad('big') }),
  },
  {
    call: 'connectRemote (Playwright)',
    input: "'' (session id)",
    field: ['sessionId'],
    run: (t) => playwright.connectRemote('', creds(t)),
  },
  {
    call: 'connectRemote (Playwright)',
    input: "'sess', { timeout: -1 }",
    field: ['timeout'],
    run: (t) => playwright.connectRemote('sess', { ...creds(t), timeout: -1 }),
  },
  {
    call: 'connectRemote (Puppeteer)',
    input: '42 (session id)',
    field: ['sessionId'],
    run: (t) => puppeteer.connectRemote(bad(42), creds(t)),
  },
  {
    call: 'connectRemote (Puppeteer)',
    input: "'sess', { keepSession: 'yes' }",
    field: ['keepSession'],
    run: (t) => puppeteer.connectRemote('sess', { ...creds(t), keepSession: bad('yes') }),
  },
  {
    call: 'chromium.launch',
    input: '{ remote: { country: 123 } }',
    field: ['country'],
    run: (t) => playwright.chromium.launch({ remote: { ...creds(t), country: bad(123) } }),
  },
  {
    call: 'chromium.launch',
    input: '{ timeout: -1 }',
    field: ['timeout'],
    run: (t) => playwright.chromium.launch({ timeout: -1, remote: creds(t) }),
  },
  // Not `''`: Playwright documents launchPersistentContext('') as "a temporary directory",
  // which the drop-in maps to a fresh session (docs/launch.md), so `''` is valid input.
  {
    call: 'chromium.launchPersistentContext',
    input: '42 (userDataDir)',
    field: ['userDataDir'],
    run: (t) => playwright.chromium.launchPersistentContext(bad(42), { remote: creds(t) }),
  },
  {
    call: 'chromium.launchPersistentContext',
    input: "'p', { remote: { maxDurationMinutes: -1 } }",
    field: ['maxDurationMinutes', 'max_duration_minutes'],
    run: (t) =>
      playwright.chromium.launchPersistentContext('p', {
        remote: { ...creds(t), maxDurationMinutes: -1 },
      }),
  },
  {
    call: 'puppeteer.launch',
    input: "{ remote: { waitForSlot: 'no' } }",
    field: ['waitForSlot'],
    run: (t) => puppeteer.puppeteer.launch({ remote: { ...creds(t), waitForSlot: bad('no') } }),
  },
  {
    call: 'puppeteer.launch',
    input: "{ defaultViewport: 'big' }",
    field: ['defaultViewport'],
    run: (t) => puppeteer.puppeteer.launch({ defaultViewport: bad('big'), remote: creds(t) }),
  },
  // BrowserApi constructor
  {
    call: 'new BrowserApi',
    input: '{ timeout: -1 }',
    field: ['timeout'],
    seed: true,
    run: async (t) => browserApi(t, { timeout: -1 }).close(),
  },
  {
    call: 'new BrowserApi',
    input: '{ timeout: NaN }',
    field: ['timeout'],
    seed: true,
    run: async (t) => browserApi(t, { timeout: Number.NaN }).close(),
  },
  {
    call: 'new BrowserApi',
    input: '{ token: 42 }',
    field: ['token'],
    seed: true,
    run: async (t) => browserApi(t, { token: 42 }).close(),
  },
  {
    call: 'new BrowserApi',
    input: "{ baseUrl: 'ftp://host' }",
    field: ['baseUrl'],
    run: async (t) => browserApi(t, { baseUrl: 'ftp://host' }).close(),
  },
  {
    call: 'new BrowserApi',
    input: '{ retry: { retries: -1 } }',
    field: ['retries', 'retry'],
    run: async (t) => browserApi(t, { retry: { retries: -1 } }).close(),
  },
  // BrowserApi resources
  {
    call: 'sessions.create',
    input: "{ protocol: 'ftp' }",
    field: ['protocol'],
    run: (t) => withBrowserApi(t, (api) => api.sessions.create({ protocol: bad('ftp') })),
  },
  {
    call: 'sessions.create',
    input: '{ max_duration_minutes: -1 }',
    field: ['max_duration_minutes'],
    run: (t) => withBrowserApi(t, (api) => api.sessions.create({ max_duration_minutes: -1 })),
  },
  {
    call: 'sessions.createAsync',
    input: "{ filter_mode: 'fast' }",
    field: ['filter_mode'],
    run: (t) => withBrowserApi(t, (api) => api.sessions.createAsync({ filter_mode: bad('fast') })),
  },
  {
    call: 'sessions.list',
    input: '{ limit: 501 }',
    field: ['limit'],
    seed: true,
    run: (t) => withBrowserApi(t, (api) => api.sessions.list({ limit: 501 })),
  },
  {
    call: 'sessions.list',
    input: "{ status: 'alive' }",
    field: ['status'],
    run: (t) => withBrowserApi(t, (api) => api.sessions.list({ status: bad('alive') })),
  },
  {
    call: 'sessions.list (per-call options)',
    input: '{}, { timeout: -5 }',
    field: ['timeout'],
    seed: true,
    run: (t) => withBrowserApi(t, (api) => api.sessions.list({}, { timeout: -5 })),
  },
  {
    call: 'sessions.list (per-call options)',
    input: "{}, { signal: 'stop' }",
    field: ['signal'],
    seed: true,
    run: (t) => withBrowserApi(t, (api) => api.sessions.list({}, { signal: bad('stop') })),
  },
  {
    call: 'sessions.retrieve',
    input: "''",
    field: ['id'],
    run: (t) => withBrowserApi(t, (api) => api.sessions.retrieve('')),
  },
  {
    call: 'sessions.connection',
    input: "''",
    field: ['id'],
    run: (t) => withBrowserApi(t, (api) => api.sessions.connection('')),
  },
  {
    call: 'sessions.pages',
    input: '42',
    field: ['id'],
    run: (t) => withBrowserApi(t, (api) => api.sessions.pages(bad(42))),
  },
  {
    call: 'sessions.end',
    input: "''",
    field: ['id'],
    run: (t) => withBrowserApi(t, (api) => api.sessions.end('')),
  },
  {
    call: 'sessions.retrieveAsync',
    input: "''",
    field: ['requestId', 'request_id', 'id'],
    run: (t) => withBrowserApi(t, (api) => api.sessions.retrieveAsync('')),
  },
  {
    call: 'sessions.recordings.list',
    input: "''",
    field: ['sessionId', 'id'],
    run: (t) => withBrowserApi(t, (api) => api.sessions.recordings.list('')),
  },
  {
    call: 'profiles.create',
    input: '{ name: <101 characters> }',
    field: ['name'],
    seed: true,
    run: (t) => withBrowserApi(t, (api) => api.profiles.create({ name: LONG(101) })),
  },
  {
    call: 'profiles.create',
    input: "{ name: '' }",
    field: ['name'],
    run: (t) => withBrowserApi(t, (api) => api.profiles.create({ name: '' })),
  },
  {
    call: 'profiles.retrieve',
    input: "''",
    field: ['id'],
    run: (t) => withBrowserApi(t, (api) => api.profiles.retrieve('')),
  },
  {
    call: 'profiles.update',
    input: "'p', { name: 42 }",
    field: ['name'],
    run: (t) => withBrowserApi(t, (api) => api.profiles.update('p', { name: bad(42) })),
  },
  {
    call: 'profiles.delete',
    input: "''",
    field: ['id'],
    run: (t) => withBrowserApi(t, (api) => api.profiles.delete('')),
  },
  {
    call: 'profiles.findByName',
    input: "''",
    field: ['name'],
    run: (t) => withBrowserApi(t, (api) => api.profiles.findByName('')),
  },
  {
    call: 'locations.regions',
    input: '{} (no country)',
    field: ['country'],
    run: (t) => withBrowserApi(t, (api) => api.locations.regions(bad({}))),
  },
  {
    call: 'locations.countries',
    input: '{ limit: -1 }',
    field: ['limit'],
    run: (t) => withBrowserApi(t, (api) => api.locations.countries({ limit: -1 })),
  },
  {
    call: 'configurations.validate',
    // Not a vocabulary check (judging those is this endpoint's job): a wrong type.
    input: '{ country: 123 }',
    field: ['country'],
    run: (t) => withBrowserApi(t, (api) => api.configurations.validate({ country: bad(123) })),
  },
  {
    call: 'proxy.options (per-call options)',
    input: "{ timeout: 'soon' }",
    field: ['timeout'],
    run: (t) => withBrowserApi(t, (api) => api.proxy.options({ timeout: bad('soon') })),
  },
  {
    call: 'tools.navigate',
    input: "{ session_id: 's', url: 'not a url' }",
    field: ['url'],
    seed: true,
    run: (t) =>
      withBrowserApi(t, (api) => api.tools.navigate({ session_id: 's', url: 'not a url' })),
  },
  {
    call: 'tools.content',
    input: "{ session_id: '' }",
    field: ['session_id'],
    run: (t) => withBrowserApi(t, (api) => api.tools.content({ session_id: '' })),
  },
  {
    call: 'tools.screenshot',
    input: '{}',
    field: ['session_id'],
    run: (t) => withBrowserApi(t, (api) => api.tools.screenshot(bad({}))),
  },
  {
    call: 'tools.pdf',
    input: '{ session_id: 7 }',
    field: ['session_id'],
    run: (t) => withBrowserApi(t, (api) => api.tools.pdf({ session_id: bad(7) })),
  },
  {
    call: 'tools.click',
    input: "{ session_id: 's' } (no selector)",
    field: ['selector'],
    run: (t) => withBrowserApi(t, (api) => api.tools.click(bad({ session_id: 's' }))),
  },
  {
    call: 'tools.type',
    input: "{ session_id: 's', selector: '#q' } (no text)",
    field: ['text'],
    run: (t) =>
      withBrowserApi(t, (api) => api.tools.type(bad({ session_id: 's', selector: '#q' }))),
  },
  {
    call: 'tools.scroll',
    input: "{ session_id: 's', x: 'left', y: 0 }",
    field: ['x'],
    run: (t) =>
      withBrowserApi(t, (api) => api.tools.scroll({ session_id: 's', x: bad('left'), y: 0 })),
  },
  // AccountApi constructor
  {
    call: 'new AccountApi',
    input: "{ rateLimits: { windowMs: 'x' } }",
    field: ['windowMs'],
    seed: true,
    run: async (t) => accountApi(t, { rateLimits: { windowMs: 'x' } }).close(),
  },
  {
    call: 'new AccountApi',
    input: '{ rateLimits: { submit: 0 } }',
    field: ['submit'],
    seed: true,
    run: async (t) => accountApi(t, { rateLimits: { submit: 0 } }).close(),
  },
  {
    call: 'new AccountApi',
    input: '{ timeout: -1 }',
    field: ['timeout'],
    seed: true,
    run: async (t) => accountApi(t, { timeout: -1 }).close(),
  },
  {
    call: 'new AccountApi',
    input: '{ apiKey: 42 }',
    field: ['apiKey'],
    run: async (t) => accountApi(t, { apiKey: 42 }).close(),
  },
  // AccountApi resources
  {
    call: 'queries.submit',
    input: 'null',
    field: ['params', 'questions'],
    seed: true,
    run: (t) => withAccountApi(t, (api) => api.queries.submit(bad(null))),
  },
  {
    call: 'queries.submit',
    input: "{ questions: [], platforms: ['assistant_a'], locations: [{ country: 'us' }] }",
    field: ['questions'],
    run: (t) =>
      withAccountApi(t, (api) =>
        api.queries.submit({
          questions: [],
          platforms: ['assistant_a'],
          locations: [{ country: 'us' }],
        }),
      ),
  },
  {
    call: 'queries.submit',
    input: "{ …, locations: [{ country: 'USA' }] }",
    field: ['country', 'locations'],
    run: (t) =>
      withAccountApi(t, (api) =>
        api.queries.submit({
          questions: ['q'],
          platforms: ['assistant_a'],
          locations: [{ country: 'USA' }],
        }),
      ),
  },
  {
    call: 'queries.submit',
    input: "{ …, platforms: ['assistant_z'] }",
    field: ['platforms'],
    run: (t) =>
      withAccountApi(t, (api) =>
        api.queries.submit({
          questions: ['q'],
          platforms: [bad('assistant_z')],
          locations: [{ country: 'us' }],
        }),
      ),
  },
  {
    call: 'queries.results',
    input: "''",
    field: ['requestId', 'request_id'],
    seed: true,
    run: (t) => withAccountApi(t, (api) => api.queries.results('')),
  },
  {
    call: 'queries.wait',
    input: "'r', { timeout: NaN }",
    field: ['timeout'],
    run: (t) => withAccountApi(t, (api) => api.queries.wait('r', { timeout: Number.NaN })),
  },
  {
    call: 'queries.run',
    input: "{ questions: [''], … }",
    field: ['questions'],
    run: (t) =>
      withAccountApi(t, (api) =>
        api.queries.run({
          questions: [''],
          platforms: ['assistant_a'],
          locations: [{ country: 'us' }],
        }),
      ),
  },
  {
    call: 'queries.runMany',
    input: '{ …, locations: [] }',
    field: ['locations'],
    run: (t) =>
      withAccountApi(t, (api) =>
        api.queries.runMany({ questions: ['q'], platforms: ['assistant_a'], locations: [] }),
      ),
  },
  {
    call: 'balance',
    input: "{ signal: 'stop' }",
    field: ['signal'],
    run: (t) => withAccountApi(t, (api) => api.balance({ signal: bad('stop') })),
  },
  {
    call: 'webhooks.create',
    input: "{ url: 'not a url', events: ['query.completed'] }",
    field: ['url'],
    run: (t) =>
      withAccountApi(t, (api) =>
        api.webhooks.create({ url: 'not a url', events: ['query.completed'] }),
      ),
  },
  {
    call: 'webhooks.create',
    input: "{ url: 'https://hooks.example/x', events: [] }",
    field: ['events'],
    run: (t) =>
      withAccountApi(t, (api) =>
        api.webhooks.create({ url: 'https://hooks.example/x', events: [] }),
      ),
  },
  {
    call: 'webhooks.retrieve',
    input: "''",
    field: ['id'],
    run: (t) => withAccountApi(t, (api) => api.webhooks.retrieve('')),
  },
  {
    call: 'webhooks.update',
    input: "'w1', { url: <501 characters> }",
    field: ['url'],
    seed: true,
    run: (t) =>
      withAccountApi(t, (api) =>
        api.webhooks.update('w1', { url: `https://hooks.example/${LONG(480)}` }),
      ),
  },
  {
    call: 'webhooks.replace',
    input: "'w1', { url: 'https://hooks.example/x' } (events missing)",
    field: ['events'],
    run: (t) =>
      withAccountApi(t, (api) =>
        api.webhooks.replace('w1', bad({ url: 'https://hooks.example/x' })),
      ),
  },
  {
    call: 'webhooks.disable',
    input: "''",
    field: ['id'],
    run: (t) => withAccountApi(t, (api) => api.webhooks.disable('')),
  },
  {
    call: 'webhooks.enable',
    input: '42',
    field: ['id'],
    run: (t) => withAccountApi(t, (api) => api.webhooks.enable(bad(42))),
  },
  {
    call: 'webhooks.delete',
    input: "''",
    field: ['id'],
    run: (t) => withAccountApi(t, (api) => api.webhooks.delete('')),
  },
  {
    call: 'webhooks.rotateSecret',
    input: "''",
    field: ['id'],
    run: (t) => withAccountApi(t, (api) => api.webhooks.rotateSecret('')),
  },
  {
    call: 'notifications.markRead',
    input: "''",
    field: ['notificationId', 'id'],
    run: (t) => withAccountApi(t, (api) => api.notifications.markRead('')),
  },
  // Webhook verification (fails closed)
  ...webhookRows(),
  // Emulator and Playwright Test config
  {
    call: 'startEmulator',
    input: '{ port: -1 }',
    field: ['port'],
    run: async () => (await startEmulator({ port: -1 })).close(),
  },
  {
    call: 'startEmulator',
    input: "{ network: { rttMs: 'slow' } }",
    field: ['rttMs', 'network'],
    run: async () => (await startEmulator({ network: { rttMs: bad('slow') } })).close(),
  },
  {
    call: 'startEmulator',
    input: '{ sessionStartMs: -1 }',
    field: ['sessionStartMs'],
    run: async () => (await startEmulator({ sessionStartMs: -1 })).close(),
  },
  {
    call: 'defineRemoteConfig',
    input: "{}, { emulator: 'yes' }",
    field: ['emulator'],
    run: async () => defineRemoteConfig({}, { emulator: bad('yes') }),
  },
  {
    call: 'defineRemoteConfig',
    input: "{}, { reap: 'no' }",
    field: ['reap'],
    run: async () => defineRemoteConfig({}, { reap: bad('no') }),
  },
  {
    call: 'defineRemoteConfig',
    input: '{ use: { remote: { country: 123 } } }',
    field: ['country'],
    run: async () => defineRemoteConfig({ use: bad<never>({ remote: { country: 123 } }) }),
  },
];

const SECRET = `whsec_${Buffer.from('reliability-table-secret-0001').toString('base64')}`;

function webhookRows(): BadInput[] {
  const body = '{"type":"query.completed"}';
  const headers = {};
  return [
    {
      call: 'verifyWebhook',
      input: "secrets: ['']",
      field: ['secrets'],
      seed: true,
      run: async () => verifyWebhook(body, headers, { secrets: [''] }),
    },
    {
      call: 'verifyWebhook',
      input: "secrets: 'w' (a one-character string)",
      field: ['secrets'],
      seed: true,
      run: async () => verifyWebhook(body, headers, { secrets: 'w' }),
    },
    {
      call: 'verifyWebhook',
      input: "tolerance: 'abc'",
      field: ['tolerance'],
      seed: true,
      run: async () => verifyWebhook(body, headers, { secrets: [SECRET], tolerance: bad('abc') }),
    },
    {
      call: 'verifyWebhook',
      input: 'tolerance: NaN',
      field: ['tolerance'],
      seed: true,
      run: async () => verifyWebhook(body, headers, { secrets: [SECRET], tolerance: Number.NaN }),
    },
    {
      call: 'verifyWebhook',
      input: 'body: 42',
      field: ['body'],
      run: async () => verifyWebhook(bad(42), { 'webhook-id': 'x' }, { secrets: [SECRET] }),
    },
    {
      call: 'verifyWebhook',
      input: 'headers: null',
      field: ['headers'],
      run: async () => verifyWebhook(body, bad(null), { secrets: [SECRET] }),
    },
    {
      call: 'new SecretRing',
      input: "{ current: '' }",
      field: ['current'],
      seed: true,
      run: async () => new SecretRing({ current: '' }),
    },
    {
      call: 'new SecretRing',
      input: '{ current: <secret>, previous: 42 }',
      field: ['previous'],
      run: async () => new SecretRing({ current: SECRET, previous: bad(42) }),
    },
  ];
}
