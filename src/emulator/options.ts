/** Options of `startEmulator()`; every one has a default so `startEmulator()` just works. */
import { z } from 'zod';
import { RequestValidationError } from '../http/index.js';
import {
  AccountOptionsSchema,
  type AccountServiceOptions,
} from './account-service/account-options.js';
import { siteIssue } from './network/internet.js';
import { optionIssues } from './option-issues.js';
import type { RuntimeOptions } from './runtime/index.js';
import { type Isolation, RUNTIME_DEFAULT_ISOLATION } from './runtime/sandbox.js';
import { isLoopbackHost } from './server/own-origin.js';

export interface AccountLimits {
  /** Concurrent running sessions; default 50. A create beyond it is a 429 with `limit_type: 'sessions'`. */
  concurrentSessions: number;
  /** Saved profiles; default 10. A create beyond it is a 429 with `limit_type: 'profiles'`. */
  profiles: number;
  /** Maximum session lifetime in minutes; default 30. A request may ask for less, never more. */
  maxDurationMinutes: number;
  /** Minutes without CDP traffic or page actions before a session ends; default 10. A request may ask for less, never more. */
  idleTimeoutMinutes: number;
}

/** The network between the user and the service, as the emulator models it (docs/emulator.md). */
export interface NetworkOptions {
  /**
   * Round-trip time in ms added to every HTTP exchange, every websocket frame (half each way:
   * CDP, live view) and every new TCP connection (its handshake), on the emulator's origin and
   * on each session's `debugger_address`; default 0 (loopback as it is).
   */
  rttMs?: number;
  /**
   * The "flaky network" mode: the clients' websockets of one session (picked at random among
   * those with any) are cut at random intervals of this mean, in ms of real time; the sessions
   * keep running. For soak tests of reconnecting clients. Default off.
   */
  flaky?: { meanIntervalMs: number };
}

export type EmulatorLogger = (level: 'info' | 'warn' | 'error', message: string) => void;

export interface EmulatorOptions extends RuntimeOptions {
  /**
   * Interface to bind; default `127.0.0.1`. Only a loopback address (`127.0.0.1`, `::1`,
   * `localhost`) unless `expose` is true: the admin API has no auth.
   */
  host?: string;
  /**
   * Allow a `host` that is not loopback (`0.0.0.0`, a LAN address); default false. Anyone who
   * reaches that address gets the admin API without auth (accounts and their tokens, reset,
   * faults, clock), so the emulator says so on stderr and to the logger when it starts.
   */
  expose?: boolean;
  /** TCP port; default 0 (a free port, read it from the handle's `url`). */
  port?: number;
  /**
   * Emulator-clock delay between a session's end and its recordings appearing in
   * `GET /sessions/{id}/recordings`; default 3000 ms. Models the service's encode-and-upload step.
   */
  recordingPublicationDelayMs?: number;
  /** Limits of every new account unless `POST /_emulator/accounts` overrides them; defaults as on `AccountLimits`. */
  defaultLimits?: Partial<AccountLimits>;
  /** Serve location data; default true. `false` answers `/locations/*` with 503 `reason: 'locations_not_configured'`. */
  locations?: boolean;
  /** Where log lines go (already redacted); default: nowhere. */
  logger?: EmulatorLogger;
  /** How long an ended session (and its recordings) stays readable; default 3 days of emulator clock. */
  retentionMs?: number;
  /** Validity of a browser token; default 7 days of emulator clock. */
  tokenValidityMs?: number;
  /** Lifetime of a recording's signed `video_url`; default 10 minutes of emulator clock. */
  videoUrlLifetimeMs?: number;
  /** Credits of the default account (for the account service); default 1000. */
  defaultBalance?: number;
  /** The account service's behaviour (delays, failures, charges, limits); defaults in docs/account.md. */
  account?: AccountServiceOptions;
  /** A network between the clients and the emulator; default none (`{ rttMs: 0 }`). */
  network?: NetworkOptions;
  /**
   * How long a session create (`POST /sessions` and `/sessions-async`) takes at least, in ms,
   * modelling the real service's seconds-long start; the slot is held meanwhile. Default 0 (the
   * create takes as long as Chromium's launch).
   */
  sessionStartMs?: number;
  /**
   * How remote a session's browser is; default `'remote'`: it runs as on another machine (on
   * Linux in a bubblewrap sandbox): it reaches nothing of this machine (not its loopback, not
   * its other addresses), only the hosts of `internet` and `exit.test`, through its exit; it sees
   * none of this machine's files. Where no sandbox can be made it falls back to `'none'` with one
   * warning, and with `CI=true` it fails instead. `'none'` is NOT faithful: the browser runs on
   * this machine with its network and its disk, so a page reaches `localhost` and `file://`
   * shows local files, which no remote browser of the service can. docs/emulator.md, "How remote
   * the emulator is".
   */
  isolation?: Isolation;
  /**
   * The emulator's internet: host name → the local origin that serves it, e.g.
   * `{ 'shop.test': 'http://127.0.0.1:4000' }` (http or https targets; a self-signed https
   * target is accepted). With `isolation: 'remote'` these, and `exit.test`, are all a session's
   * browser can reach; more can be published at run time with `admin.publish()`. Default `{}`.
   */
  internet?: Record<string, string>;
  /**
   * Serve https and wss: `true` with a certificate from a CA made for this emulator (the
   * handle's `ca`), or `{ cert, key }` (PEM) of your own. `cdp_url` is then `wss://`, and
   * `live_view_url`, `video_url` are `https://`. Default `false` (http and ws).
   */
  tls?: boolean | { cert: string; key: string };
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export const DEFAULT_LIMITS: AccountLimits = {
  concurrentSessions: 50,
  profiles: 10,
  maxDurationMinutes: 30,
  idleTimeoutMinutes: 10,
};

const positive = () => z.number().positive().finite();
const noLogger: EmulatorLogger = () => {};
/** A duration in ms: a finite number >= 0. */
const ms = () => z.number().min(0).finite();
const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === 'function', `must be ${what}`);

/** The rules of each limit, for `defaultLimits` and the admin API's account limits alike. */
export const accountLimitsShape = {
  concurrentSessions: z.number().int().min(0),
  profiles: z.number().int().min(0),
  maxDurationMinutes: z.number().int().min(1),
  idleTimeoutMinutes: z.number().int().min(1),
} satisfies Record<keyof AccountLimits, z.ZodType>;

/** `RuntimeOptions`, key for key: a key added there without a rule here is a type error. */
const runtimeShape = {
  chromiumPath: z.string().min(1).optional(),
  ffmpegPath: z.union([z.string().min(1), z.literal(false)]).optional(),
  workDir: z.string().min(1).optional(),
  actionTimeoutMs: positive().optional(),
  recordingFps: positive().optional(),
  launchTimeoutMs: positive().optional(),
} satisfies Record<keyof RuntimeOptions, z.ZodType>;

/**
 * `startEmulator()`'s options as one strict zod object: every rule in one place, and a key no
 * option has (`tlz`, `network.rtt`) is refused by name, from the shapes themselves.
 */
const EmulatorOptionsSchema = z
  .strictObject({
    host: z.string().min(1).default('127.0.0.1'),
    expose: z.boolean().default(false),
    port: z.number().int().min(0).max(65535).default(0),
    recordingPublicationDelayMs: ms().default(3000),
    defaultLimits: z
      .strictObject(accountLimitsShape)
      .partial()
      .prefault({})
      .transform((limits): AccountLimits => ({ ...DEFAULT_LIMITS, ...limits })),
    locations: z.boolean().default(true),
    logger: fn<EmulatorLogger>('a function (level, message) => void').default(() => noLogger),
    retentionMs: ms().default(3 * DAY),
    tokenValidityMs: ms().default(7 * DAY),
    videoUrlLifetimeMs: ms().default(10 * MINUTE),
    defaultBalance: z.number().min(0).default(1000),
    account: AccountOptionsSchema.optional(),
    network: z
      .strictObject({
        rttMs: ms().default(0),
        // `null` reads as a flaky mode without its interval: the error names the interval.
        flaky: z
          .preprocess(
            (value) => (value === null ? {} : value),
            z.strictObject({ meanIntervalMs: positive() }),
          )
          .optional(),
      })
      .prefault({}),
    sessionStartMs: ms().default(0),
    isolation: z
      .enum(['remote', 'none'], {
        error: (issue) => `must be 'remote' or 'none' (got ${JSON.stringify(issue.input)})`,
      })
      .default(RUNTIME_DEFAULT_ISOLATION),
    internet: z
      .record(z.string(), z.string(), {
        error: "must be an object such as { 'shop.test': 'http://127.0.0.1:4000' }",
      })
      .superRefine((sites, ctx) => {
        for (const [host, target] of Object.entries(sites)) {
          const issue = siteIssue(host, target);
          if (issue) ctx.addIssue({ code: 'custom', path: [issue.field], message: issue.message });
        }
      })
      .default({}),
    // Never echoed: it may hold a private key.
    tls: z
      .union([z.boolean(), z.strictObject({ cert: z.string(), key: z.string() })], {
        error: 'must be true, false or { cert, key } (PEM strings)',
      })
      .default(false),
    ...runtimeShape,
  })
  .superRefine(({ host, expose }, ctx) => {
    // Loopback unless `expose: true`: the admin API has no auth.
    if (isLoopbackHost(host) || expose) return;
    ctx.addIssue({
      code: 'custom',
      path: ['host'],
      message: `must be a loopback address (127.0.0.1, ::1, localhost), got ${host}: the admin API has no auth; pass expose: true (--expose) to bind it anyway`,
    });
  });

/** The options with every default filled in; the runtime's own keys under `runtime`. */
export type ResolvedOptions = Omit<
  z.output<typeof EmulatorOptionsSchema>,
  keyof RuntimeOptions | 'account'
> & { account: AccountServiceOptions; runtime: RuntimeOptions };

export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const parsed = EmulatorOptionsSchema.safeParse(options, { reportInput: true });
  if (!parsed.success) {
    const issues = optionIssues(EmulatorOptionsSchema, parsed.error);
    throw new RequestValidationError('startEmulator', issues, 'options');
  }
  const resolved = parsed.data;
  const runtime: RuntimeOptions = {};
  for (const key of Object.keys(runtimeShape) as (keyof RuntimeOptions)[]) {
    if (resolved[key] !== undefined) Object.assign(runtime, { [key]: resolved[key] });
    delete resolved[key];
  }
  // The account service fills in its own defaults (`resolveAccountOptions`).
  return { ...resolved, account: options.account ?? {}, runtime };
}

/** The warning an exposed emulator prints when it starts; undefined on loopback. */
export function exposureWarning(options: ResolvedOptions, origin: string): string | undefined {
  if (isLoopbackHost(options.host)) return undefined;
  return (
    `WARNING: the emulator is exposed on ${options.host} (${origin}): anyone who can reach it ` +
    'gets its admin API without auth (/_emulator: new accounts with their tokens, reset, ' +
    'faults, clock) and can run browser sessions on this machine'
  );
}
