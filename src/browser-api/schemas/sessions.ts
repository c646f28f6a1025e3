/** Request and response schemas of `/sessions`, `/sessions-async` and their sub-resources. */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import {
  type ConnectionType,
  ConnectionTypeSchema,
  FILTER_MODES_FOR_QUALITY_FLAG,
  type FilterMode,
  FilterModeSchema,
  IdSchema,
  MinutesSchema,
  type Protocol,
  ProtocolSchema,
  type SessionStatusFilter,
  SessionStatusFilterSchema,
  SessionStatusSchema,
  type SessionType,
  SessionTypeSchema,
  TimestampSchema,
} from './vocabulary.js';

const targeting = lazySchema(() => ({
  protocol: ProtocolSchema.optional(),
  country: zod().string().optional(),
  region: zod().string().optional(),
  city: zod().string().optional(),
  zip: zod().string().optional(),
  isp: zod().string().optional(),
  connection_type: ConnectionTypeSchema.optional(),
  session_type: SessionTypeSchema.optional(),
  filter_mode: FilterModeSchema.optional(),
  quality_filter_enabled: zod().boolean().optional(),
  ipv4_only: zod().boolean().optional(),
}));

/**
 * `POST /sessions` and `POST /sessions-async`. Unknown keys pass through: the spec lists the
 * documented fields, and the service may accept more.
 */
export const SessionCreateParamsSchema = lazySchema(() =>
  zod()
    .looseObject({
      proxy_password: zod().string().min(1),
      ...targeting,
      extra_stealth: zod().boolean().optional(),
      captcha_solver: zod().boolean().optional(),
      cloudflare_web_bot_auth: zod().boolean().optional(),
      ad_blocker: zod().boolean().optional(),
      popup_blocker: zod().boolean().optional(),
      headless: zod().boolean().optional(),
      max_duration_minutes: MinutesSchema.optional(),
      idle_timeout_minutes: MinutesSchema.optional(),
      profile_id: IdSchema.optional(),
    })
    .superRefine((body, ctx) => {
      const flag = body.quality_filter_enabled;
      if (flag === undefined || body.filter_mode === undefined) return;
      const compatible = FILTER_MODES_FOR_QUALITY_FLAG[flag ? 'true' : 'false'];
      if (compatible.includes(body.filter_mode)) return;
      ctx.addIssue({
        code: 'custom',
        path: ['quality_filter_enabled'],
        message:
          `${flag} conflicts with filter_mode "${body.filter_mode}" ` +
          `(${flag} goes with ${compatible.join(' or ')}); quality_filter_enabled is deprecated: send filter_mode alone`,
      });
    }),
);

/** The service's largest `limit`: a larger one is a 400 ("out-of-range limit"). */
export const SESSION_LIST_MAX_LIMIT = 500;

export const SessionListParamsSchema = lazySchema(() =>
  zod().looseObject({
    status: SessionStatusFilterSchema.optional(),
    limit: zod().number().int().positive().max(SESSION_LIST_MAX_LIMIT).optional(),
  }),
);

/**
 * The resolved targeting of a session. Every key is optional and kept as a string: location
 * keys are omitted when empty, and "further config keys: not shown", so a value the service
 * adds to its vocabulary later must not fail every list call.
 */
export const SessionConfigSchema = lazySchema(() =>
  zod().looseObject({
    country: zod().string().optional(),
    region: zod().string().optional(),
    city: zod().string().optional(),
    zip: zod().string().optional(),
    isp: zod().string().optional(),
    protocol: zod().string().optional(),
    connection_type: zod().string().optional(),
    session_type: zod().string().optional(),
    filter_mode: zod().string().optional(),
    /** @deprecated a boolean view of `filter_mode`: true for `quality` and `quality_speed`. */
    quality_filter_enabled: zod().boolean().optional(),
    ipv4_only: zod().boolean().optional(),
    profile_name: zod().string().nullish(),
    profile_id: zod().string().nullish(),
  }),
);
export type SessionConfig = z.infer<typeof SessionConfigSchema>;

/** A websocket URL carrying an access token: shown redacted (see `hideCdpUrl`). */
const CdpUrlSchema = lazySchema(() =>
  zod()
    .string()
    .regex(/^wss?:\/\//i, 'must be a ws:// or wss:// URL'),
);

export const SessionCreatedSchema = lazySchema(() =>
  zod().looseObject({
    id: IdSchema,
    cdp_url: CdpUrlSchema,
    status: SessionStatusSchema,
  }),
);
export type SessionCreated = z.infer<typeof SessionCreatedSchema>;

export const SessionSummarySchema = lazySchema(() =>
  zod().looseObject({
    id: IdSchema,
    status: SessionStatusSchema,
    created_at: TimestampSchema,
    config: SessionConfigSchema,
  }),
);
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

export const SessionSchema = lazySchema(() =>
  zod().looseObject({
    id: IdSchema,
    status: SessionStatusSchema,
    created_at: TimestampSchema,
    /** Null while running. */
    ended_at: TimestampSchema.nullable(),
    config: SessionConfigSchema,
    /** Present while running only. */
    cdp_url: CdpUrlSchema.optional(),
  }),
);
export type Session = z.infer<typeof SessionSchema>;

/** `null` and absent read the same: `undefined`, so callers test one thing. */
const absentWhenNull = (schema: z.ZodString) =>
  schema.nullish().transform((value) => value ?? undefined);

/**
 * What an external client needs to attach. The spec shows a running session; for an ended one
 * the three connection fields may be null or absent (not shown), so they are required only
 * while `status` is `running`.
 */
export const SessionConnectionSchema = lazySchema(() =>
  zod()
    .looseObject({
      id: IdSchema,
      status: SessionStatusSchema,
      cdp_url: absentWhenNull(CdpUrlSchema),
      /** `host:port` for remote-debugging clients. */
      debugger_address: absentWhenNull(zod().string().min(1)),
      /** Opens in any browser tab to watch the session live. */
      live_view_url: absentWhenNull(
        zod()
          .string()
          .regex(/^https?:\/\//i, 'must be an http(s) URL'),
      ),
      config: SessionConfigSchema,
    })
    .superRefine((connection, ctx) => {
      if (connection.status !== 'running') return;
      for (const field of ['cdp_url', 'debugger_address', 'live_view_url'] as const) {
        if (typeof connection[field] !== 'string') {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: 'is required while the session is running',
          });
        }
      }
    }),
);
export type SessionConnection = z.infer<typeof SessionConnectionSchema>;

export const PageSchema = lazySchema(() =>
  zod().looseObject({
    id: zod().string(),
    title: zod().string(),
    type: zod().string(),
    url: zod().string(),
  }),
);
export type Page = z.infer<typeof PageSchema>;

export const SessionEndedSchema = lazySchema(() =>
  zod().looseObject({ status: zod().literal('success') }),
);
export type SessionEnded = z.infer<typeof SessionEndedSchema>;

export const AsyncSessionCreatedSchema = lazySchema(() =>
  zod().looseObject({ request_id: IdSchema }),
);
export type AsyncSessionCreated = z.infer<typeof AsyncSessionCreatedSchema>;

/**
 * The poll of an asynchronous create. Its shape is "not shown" by the spec, so nothing is
 * required here; `waitForAsync` documents how it reads it.
 */
export const AsyncSessionRequestSchema = lazySchema(() =>
  zod().looseObject({
    request_id: zod().string().optional(),
    status: zod().string().optional(),
  }),
);
export type AsyncSessionRequest = z.infer<typeof AsyncSessionRequestSchema>;

/** The body of `POST /sessions` (and `/sessions-async`), in the service's field names. */
export interface SessionCreateParams {
  /**
   * The account's proxy password; a session cannot exist without an active proxy.
   * Default: the client's `proxyPassword`, else `REMOTE_BROWSER_PROXY_PASSWORD`.
   */
  proxy_password?: string;
  /** Default (server): `http`. */
  protocol?: Protocol;
  /** Location codes from `api.locations`; omit them for a broad exit. */
  country?: string;
  region?: string;
  city?: string;
  zip?: string;
  isp?: string;
  /** Default (server): `residential`. */
  connection_type?: ConnectionType;
  /** Default (server): `sticky` (keep the same IP). */
  session_type?: SessionType;
  /** Default (server): `quality`. The way to choose proxy filtering. */
  filter_mode?: FilterMode;
  /**
   * @deprecated Use `filter_mode`. On its own, `true` means `quality` and `false` means `none`
   * (sending `false` is not the same as omitting it). Sent with `filter_mode` it must agree:
   * `true` with `quality`/`quality_speed`, `false` with `speed`/`none`, or the call is rejected
   * before any request.
   */
  quality_filter_enabled?: boolean;
  /** Default (server): false. */
  ipv4_only?: boolean;
  /** Anti-detection hardening. Default (server): off. */
  extra_stealth?: boolean;
  /** Defaults of these switches are the service's (not shown by the spec). */
  captcha_solver?: boolean;
  cloudflare_web_bot_auth?: boolean;
  ad_blocker?: boolean;
  popup_blocker?: boolean;
  headless?: boolean;
  /** Whole minutes; default 0, which uses the account limit (30 minutes by default). */
  max_duration_minutes?: number;
  /** Whole minutes; default 0, which uses the account limit (10 minutes by default). */
  idle_timeout_minutes?: number;
  /** Reattach a saved profile's cookies, cache and (when pinned) exit IP. Default: none. */
  profile_id?: string;
}

export interface SessionListParams {
  /** Default (server): `all`. */
  status?: SessionStatusFilter;
  /**
   * Most sessions to return, 1 to 500 (the service answers a larger one with 400). Default:
   * the service's (not shown).
   */
  limit?: number;
}
