/**
 * The service's vocabulary (browser-api.md, "Proxy options object" and the session body), as
 * zod enums. Requests are checked against these; responses mostly are not, so a value the
 * service adds later does not break every caller (see the response schemas).
 */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';

export const ProtocolSchema = lazySchema(() => zod().enum(['http', 'socks5']));
export type Protocol = z.infer<typeof ProtocolSchema>;

export const ConnectionTypeSchema = lazySchema(() => zod().enum(['residential', 'mobile']));
export type ConnectionType = z.infer<typeof ConnectionTypeSchema>;

/** The location endpoints also know ISP exits. */
export const LocationConnectionTypeSchema = lazySchema(() =>
  zod().enum(['residential', 'mobile', 'isp']),
);
export type LocationConnectionType = z.infer<typeof LocationConnectionTypeSchema>;

export const SessionTypeSchema = lazySchema(() =>
  zod().enum(['sticky', 'rotating', 'no_rotating']),
);
export type SessionType = z.infer<typeof SessionTypeSchema>;

/** In the service's documented order; `quality` is the default. */
export const FilterModeSchema = lazySchema(() =>
  zod().enum(['quality', 'quality_speed', 'speed', 'none']),
);
export type FilterMode = z.infer<typeof FilterModeSchema>;

export const SessionStatusSchema = lazySchema(() => zod().enum(['running', 'ended']));
export type SessionStatus = z.infer<typeof SessionStatusSchema>;

/** The `status` filter of `GET /sessions`; `all` is the service's default. */
export const SessionStatusFilterSchema = lazySchema(() => zod().enum(['running', 'ended', 'all']));
export type SessionStatusFilter = z.infer<typeof SessionStatusFilterSchema>;

/** A path identifier: interpolated into URLs, so an empty one would hit a different route. */
export const IdSchema = lazySchema(() => zod().string().min(1));

/** ISO 8601 timestamps; checked for parseability only, so precision and offset may vary. */
export const TimestampSchema = lazySchema(() =>
  zod()
    .string()
    .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 timestamp'),
);

/** A count of minutes where 0 means "the account limit". */
export const MinutesSchema = lazySchema(() => zod().number().int().nonnegative());

/**
 * Filter modes compatible with each value of the deprecated `quality_filter_enabled`. The spec
 * calls the boolean "a view of filter_mode, true for the quality-bearing modes", and says that
 * on its own `true` means `quality` and `false` means `none`. Sent together, the pair must agree
 * with that view: `true` with `quality`/`quality_speed`, `false` with `speed`/`none`. Anything
 * else asks for two different filters, and the service's choice between them is not shown.
 */
export const FILTER_MODES_FOR_QUALITY_FLAG: Readonly<
  Record<'true' | 'false', readonly FilterMode[]>
> = {
  true: ['quality', 'quality_speed'],
  false: ['speed', 'none'],
};
