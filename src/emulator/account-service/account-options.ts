/**
 * Options of the emulated account service. Every behaviour the spec leaves "not shown" that a
 * user could need the other way is an option here; the defaults are the choices documented in
 * docs/account.md.
 */
import { z } from 'zod';
import type { AnswerProvider, Platform } from './types.js';

/** How long a row stays `pending`, in emulator ms. */
export type DelaySpec =
  | 'fast'
  | 'realistic'
  | { minMs: number; maxMs: number }
  | ((row: { platform: Platform; question: string }) => number);

export const DELAY_PRESETS = {
  /** 1–5 s: quick enough for tests and demos. */
  fast: { minMs: 1_000, maxMs: 5_000 },
  /** 20–90 s: what the spec says most rows take. */
  realistic: { minMs: 20_000, maxMs: 90_000 },
} as const;

/** What a submit naming `assistant_c` does (the spec: valid in the schema, currently unavailable). */
export type AssistantCMode =
  /** 400 `{platforms: [...]}` naming the platform; nothing charged. */
  | 'reject'
  /** Rows are created and charged, then fail (and refund) like an outage. */
  | 'fail'
  /** Treated like the available platforms. */
  | 'accept';

export interface AccountServiceOptions {
  /** Pending time of a row. Default `'fast'` (1–5 s); `'realistic'` is 20–90 s. */
  delay?: DelaySpec;
  /** Share of rows that end `failed` (0–1). Default 0. */
  failureRate?: number;
  /**
   * Seed for delays and failures; the same seed resolves the same submits the same way.
   * Default: a random seed per service.
   */
  seed?: number | string;
  /** Produces the `raw_response` of successful rows. Default: `defaultAnswerProvider`. */
  answers?: AnswerProvider;
  /** Countries rejected with 400 (key `country`). Default `['cn', 'ru']`. */
  unavailableCountries?: readonly string[];
  /**
   * Whether every location is charged too (questions × platforms × locations). Default false:
   * the spec states the charge as questions × platforms.
   */
  chargePerLocation?: boolean;
  /** Behaviour for `assistant_c`. Default `'reject'`. */
  assistantC?: AssistantCMode;
  /** Free credits granted by the first balance read of each calendar month (UTC). Default 2. */
  freeCreditsPerMonth?: number;
  /** Requests per account per window. Defaults: submit 20, balance + results 100, window 60000 ms. */
  rateLimits?: { submit?: number; read?: number; windowMs?: number } | false;
  /**
   * How long the previous secret keeps signing after a rotation, in ms; `null` drops it at once
   * (`previous_secret_valid_until: null`). Default 24 h.
   */
  rotationWindowMs?: number | null;
  /** Balance under which a submit emits `credits.low` (and a notification). Default 5. */
  lowCreditThreshold?: number;
  /** How long a webhook delivery may take before it counts as unreachable. Default 5000 ms. */
  deliveryTimeoutMs?: number;
}

const isFunction = <T>() =>
  z.custom<T>((value) => typeof value === 'function', 'must be a function');

export const DEFAULT_UNAVAILABLE_COUNTRIES = ['cn', 'ru'] as const;

/**
 * The rules of `AccountServiceOptions`, key for key (`startEmulator({ account })`), and their
 * defaults: parsing fills them in.
 */
export const AccountOptionsSchema = z.strictObject({
  delay: z
    .union([
      z.enum(['fast', 'realistic']),
      z.strictObject({ minMs: z.number().min(0).finite(), maxMs: z.number().min(0).finite() }),
      isFunction<Extract<DelaySpec, (...args: never[]) => unknown>>(),
    ])
    .default('fast'),
  failureRate: z.number().min(0).max(1).default(0),
  seed: z.union([z.number(), z.string()]).default(() => Math.floor(Math.random() * 2 ** 32)),
  answers: isFunction<AnswerProvider>().optional(),
  unavailableCountries: z
    .array(z.string())
    .readonly()
    .prefault(DEFAULT_UNAVAILABLE_COUNTRIES)
    .transform((codes): ReadonlySet<string> => new Set(codes.map((c) => c.toLowerCase()))),
  chargePerLocation: z.boolean().default(false),
  assistantC: z.enum(['reject', 'fail', 'accept']).default('reject'),
  freeCreditsPerMonth: z.number().int().min(0).default(2),
  rateLimits: z
    .union([
      z.literal(false),
      z.strictObject({
        submit: z.number().positive().finite().default(20),
        read: z.number().positive().finite().default(100),
        windowMs: z.number().positive().finite().default(60_000),
      }),
    ])
    .prefault({}),
  rotationWindowMs: z
    .number()
    .min(0)
    .finite()
    .nullable()
    .default(24 * 60 * 60 * 1000),
  lowCreditThreshold: z.number().min(0).default(5),
  deliveryTimeoutMs: z.number().positive().finite().default(5_000),
} satisfies Record<keyof AccountServiceOptions, z.ZodType>);

export type ResolvedAccountOptions = z.output<typeof AccountOptionsSchema>;

/** The options with their defaults filled in (`startEmulator` has already checked them). */
export const resolveAccountOptions = (
  options: AccountServiceOptions = {},
): ResolvedAccountOptions => AccountOptionsSchema.parse(options);

/** Emulator ms a row stays pending, drawn from `delay` with `random` in [0, 1). */
export function pendingMs(
  delay: DelaySpec,
  row: { platform: Platform; question: string },
  random: () => number,
): number {
  if (typeof delay === 'function') return Math.max(0, delay(row));
  const range = typeof delay === 'string' ? DELAY_PRESETS[delay] : delay;
  return Math.round(range.minMs + random() * Math.max(0, range.maxMs - range.minMs));
}
