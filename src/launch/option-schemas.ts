/**
 * The one home of the launch entries' option schemas: one schema per public entry
 * (`launchRemote`/`connectRemote` for Playwright and Puppeteer, the drop-in `chromium.launch`,
 * `chromium.launchPersistentContext` and `puppeteer.launch`, the fixture's `use.remote`),
 * composed from shared shapes so a rule is written once. The interfaces in options.ts stay the
 * documented types; `satisfies` keeps each shape's keys equal to its interface's.
 *
 * Only rules the library knows are checked here. The location vocabulary (which countries,
 * regions and cities exist) is the service's: those values are sent and judged by preflight.
 */
import type { z as Z } from 'zod';
import { ConnectionTypeSchema, FilterModeSchema, ProtocolSchema } from '../browser-api/index.js';
import { PROFILE_NAME_MAX_LENGTH } from '../browser-api/schemas/profiles.js';
import { IdSchema, MinutesSchema, SessionTypeSchema } from '../browser-api/schemas/vocabulary.js';
import { isAbortSignal, timeoutProblem } from '../http/call-options.js';
import { lazySchema, zod } from '../http/lazy-schema.js';
import { exposeNetworkProblem } from '../remote-cdp/host-patterns.js';
import type { DropInRemoteOptions } from './drop-in-options.js';
import type { ConnectOptions, ProfileSpec, RemoteSessionOptions } from './options.js';

type Shape<T> = Record<keyof Required<T>, Z.ZodType>;

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

function isLocale(value: string): boolean {
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

/**
 * Built on first use (issue 14, P6): a launch entry's import loads no zod; the first launch
 * builds every schema once, for far less than the session start it precedes.
 */
function build(z: typeof Z) {
  /** Values `problem()` finds nothing wrong with; otherwise its words are the issue. */
  const passing = <T>(schema: Z.ZodType<T>, problem: (value: T) => string | undefined) =>
    schema.superRefine((value, ctx) => {
      const words = problem(value);
      if (words) ctx.addIssue({ code: 'custom', message: words });
    });
  /** Ms where 0 or Infinity mean "no timeout", as for every `timeout` of the library. */
  const timeout = passing(z.unknown(), timeoutProblem).optional();
  const folder = z.string().min(1, 'must be a folder path');
  /** A finite delay in ms (slowMo, protocolTimeout). */
  const ms = z.number().nonnegative();
  const signal = z.unknown().refine(isAbortSignal, 'must be an AbortSignal').optional();
  const profileName = z.string().min(1).max(PROFILE_NAME_MAX_LENGTH);
  const geo = z.union([
    z.literal('exit'),
    z.literal(false),
    z.strictObject({
      timezoneId: z
        .string()
        .refine(isTimeZone, 'must be an IANA time zone (e.g. "Europe/Berlin")')
        .optional(),
      locale: z.string().refine(isLocale, 'must be a BCP 47 locale (e.g. "de-DE")').optional(),
      geolocation: z
        .strictObject({
          latitude: z.number().min(-90).max(90),
          longitude: z.number().min(-180).max(180),
          accuracy: z.number().nonnegative().optional(),
        })
        .optional(),
    }),
  ]);

  const profileSpec = z.strictObject({
    name: profileName,
    storeCache: z.boolean().optional(),
    pinIp: z.boolean().optional(),
  } satisfies Shape<ProfileSpec>);

  /** Where and how the session runs (options.ts `RemoteSessionOptions`). */
  const sessionShape = {
    country: z.string().optional(),
    region: z.string().optional(),
    city: z.string().optional(),
    zip: z.string().optional(),
    isp: z.string().optional(),
    protocol: ProtocolSchema.optional(),
    connectionType: ConnectionTypeSchema.optional(),
    sessionType: SessionTypeSchema.optional(),
    filterMode: FilterModeSchema.optional(),
    ipv4Only: z.boolean().optional(),
    extraStealth: z.boolean().optional(),
    captchaSolver: z.boolean().optional(),
    cloudflareWebBotAuth: z.boolean().optional(),
    adBlocker: z.boolean().optional(),
    popupBlocker: z.boolean().optional(),
    remoteHeadless: z.boolean().optional(),
    maxDurationMinutes: MinutesSchema.optional(),
    idleTimeoutMinutes: MinutesSchema.optional(),
    profile: z.union([profileName, profileSpec]).optional(),
    profileId: IdSchema.optional(),
  } satisfies Shape<RemoteSessionOptions>;

  /** How the library reaches the service and holds the session (options.ts `ConnectOptions`). */
  const connectShape = {
    token: z.string().optional(),
    baseUrl: z.string().optional(),
    proxyPassword: z.string().optional(),
    api: z
      .custom((value) => typeof (value as { sessions?: unknown } | null)?.sessions === 'object')
      .optional(),
    preflight: z.union([z.boolean(), z.literal('strict')]).optional(),
    keepSession: z.boolean().optional(),
    exposeNetwork: passing(z.string(), exposeNetworkProblem).optional(),
    reconnectWindowMs: ms.optional(),
    maxDownloadBytes: z.number().int().positive().optional(),
    geo: geo.optional(),
    recording: z.strictObject({ dir: z.string().min(1), timeout }).optional(),
    waitForSlot: z.boolean().optional(),
    signal,
    timeout,
  } satisfies Shape<ConnectOptions>;

  /** `launchRemote`'s own options of the Playwright entry (its `PlaywrightRemoteOptions`). */
  const playwrightShape = {
    browserType: z
      .custom(
        (value) =>
          typeof (value as { connectOverCDP?: unknown } | null)?.connectOverCDP === 'function',
      )
      .optional(),
    slowMo: ms.optional(),
    extraContexts: z.enum(['warn', 'error', 'allow']).optional(),
    downloadsPath: folder.optional(),
  };

  const viewport = z.strictObject({
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    deviceScaleFactor: z.number().positive().optional(),
    isMobile: z.boolean().optional(),
    isLandscape: z.boolean().optional(),
    hasTouch: z.boolean().optional(),
  });

  /** `launchRemote`'s own options of the Puppeteer entry (its `PuppeteerRemoteOptions`). */
  const puppeteerShape = {
    defaultViewport: viewport.nullable().optional(),
    protocolTimeout: ms.optional(),
    slowMo: ms.optional(),
    targetFilter: z.function().optional(),
    acceptInsecureCerts: z.boolean().optional(),
    downloadBehavior: z
      .strictObject({
        policy: z.enum(['deny', 'allow', 'allowAndName', 'default']),
        downloadPath: folder.optional(),
      })
      .refine(
        (b) => b.downloadPath !== undefined || !['allow', 'allowAndName'].includes(b.policy),
        {
          path: ['downloadPath'],
          message:
            "is required with policy 'allow' or 'allowAndName' (the client folder the downloads land in)",
        },
      )
      .optional(),
  };

  const dropInShape = {
    strict: z.boolean().optional(),
    userDataDir: z.enum(['ignore', 'profile']).optional(),
  } satisfies Shape<DropInRemoteOptions>;

  /** Rules between fields, checked once every field has its type. */
  function sessionRules(options: RemoteSessionOptions, ctx: Z.RefinementCtx): void {
    if (options.profile !== undefined && options.profileId !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['profileId'],
        message: 'cannot be combined with `profile`: pass a profile by name or by id, not both',
      });
    }
    for (const key of ['region', 'city', 'zip', 'isp'] as const) {
      if (options[key] !== undefined && options.country === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `needs \`country\` (a ${key} is looked up within its country)`,
        });
      }
    }
  }

  /**
   * Strict: an unknown key is an error, because `launchRemote` takes only its own options (a
   * local launch's options belong to the drop-ins, which map or ignore them).
   */
  const playwrightRemote = z
    .strictObject({ ...sessionShape, ...connectShape, ...playwrightShape })
    .superRefine(sessionRules);
  const puppeteerRemote = z
    .strictObject({ ...sessionShape, ...connectShape, ...puppeteerShape })
    .superRefine(sessionRules);

  const sessionId = z.string().trim().min(1);

  /** The local-launch options the drop-ins map (every other key is ignored with a warning). */
  const playwrightLocal = z.looseObject({
    remote: z
      .strictObject({ ...sessionShape, ...connectShape, ...playwrightShape, ...dropInShape })
      .superRefine(sessionRules)
      .optional(),
    headless: z.boolean().optional(),
    timeout,
    slowMo: ms.optional(),
    args: z.array(z.string()).optional(),
    downloadsPath: folder.optional(),
  });

  /**
   * The fixture's `use.remote` (remote-browser/test `RemoteTestOptions`): the session options
   * plus how the fixture runs sessions. Credentials are not among them (they come from the
   * environment), so a `token` here is an unknown key.
   */
  const budget = z.strictObject({
    sessions: z.number().int().nonnegative().optional(),
    sessionMinutes: z.number().nonnegative().optional(),
    credits: z.number().int().nonnegative().optional(),
  });
  const fixtureRemote = z
    .strictObject({
      ...sessionShape,
      sessionScope: z.enum(['worker', 'test']).optional(),
      recording: z.enum(['off', 'on', 'retain-on-failure']).optional(),
      preflight: connectShape.preflight,
      exposeNetwork: connectShape.exposeNetwork,
      geo: connectShape.geo,
      launchTimeout: timeout,
      waitForSlot: z.boolean().optional(),
      recordingTimeout: timeout,
      prewarm: z.union([z.literal(false), z.number().int().nonnegative()]).optional(),
      nonChromium: z.enum(['error', 'local']).optional(),
      budget: budget.optional(),
    })
    .superRefine(sessionRules);
  const useBlock = z.looseObject({ remote: fixtureRemote.optional() }).optional();

  return {
    /** `launchRemote(options)` of remote-browser/playwright. */
    playwrightLaunch: playwrightRemote,
    /** `connectRemote(sessionId, options)` of remote-browser/playwright. */
    playwrightConnect: z.object({ sessionId, options: playwrightRemote }),
    /** `launchRemote(options)` of remote-browser/puppeteer. */
    puppeteerLaunch: puppeteerRemote,
    /** `connectRemote(sessionId, options)` of remote-browser/puppeteer. */
    puppeteerConnect: z.object({ sessionId, options: puppeteerRemote }),
    /** The drop-in `chromium.launch(options)`. */
    chromiumLaunch: playwrightLocal,
    /** The drop-in `chromium.launchPersistentContext(userDataDir, options)`. */
    chromiumPersistent: z.object({ userDataDir: z.string(), options: playwrightLocal }),
    /** The drop-in `puppeteer.launch(options)`. */
    puppeteerDropIn: z.looseObject({
      remote: z
        .strictObject({ ...sessionShape, ...connectShape, ...puppeteerShape, ...dropInShape })
        .superRefine(sessionRules)
        .optional(),
      ...puppeteerShape,
      // `'new'` is what Puppeteer < 22 took and what Crawlee still passes: any string is headless.
      headless: z.union([z.boolean(), z.string()]).optional(),
      timeout,
      args: z.array(z.string()).optional(),
      userDataDir: z.string().optional(),
      browser: z.enum(['chrome', 'firefox']).optional(),
      signal,
    }),
    /** `defineRemoteConfig(config, options)`: its own options and every `use.remote`. */
    defineRemoteConfig: z.object({
      config: z.looseObject({
        use: useBlock,
        projects: z.array(z.looseObject({ use: useBlock })).optional(),
      }),
      options: z.strictObject({
        emulator: z.union([z.boolean(), z.literal('auto'), z.looseObject({})]).optional(),
        checkCredentials: z.boolean().optional(),
        preflight: z.boolean().optional(),
        reap: z.boolean().optional(),
        budget: budget.optional(),
        usageReport: z.boolean().optional(),
      }),
    }),
  } as const;
}

export const LAUNCH_SCHEMAS = lazySchema(() => build(zod()));
