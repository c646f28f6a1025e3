/** Schemas of `POST /configurations/validate`. */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import type { ConnectionType, FilterMode, Protocol, SessionType } from './vocabulary.js';

/**
 * Only types are checked before sending, not the vocabulary: this endpoint's job is to judge a
 * config and answer with issues and suggestions (e.g. `unsupported_filter_mode`), so a wrong
 * value is passed to the service rather than rejected here.
 */
export const ConfigurationParamsSchema = lazySchema(() =>
  zod().looseObject({
    connection_type: zod().string().optional(),
    session_type: zod().string().optional(),
    protocol: zod().string().optional(),
    country: zod().string().optional(),
    region: zod().string().optional(),
    city: zod().string().optional(),
    zip: zod().string().optional(),
    isp: zod().string().optional(),
    filter_mode: zod().string().optional(),
  }),
);

/** Known values autocomplete; any string is accepted (see `ConfigurationParamsSchema`). */
type Loose<T extends string> = T | (string & {});

export interface ConfigurationParams {
  connection_type?: Loose<ConnectionType>;
  session_type?: Loose<SessionType>;
  protocol?: Loose<Protocol>;
  country?: string;
  region?: string;
  /** Codes, like the create's (`los_angeles`); the spec does not list them here but they are sent. */
  city?: string;
  zip?: string;
  isp?: string;
  filter_mode?: Loose<FilterMode>;
  /** Other fields the service accepts are not shown by the spec; they are passed through. */
  [field: string]: unknown;
}

export const ValidationIssueSchema = lazySchema(() =>
  zod().looseObject({
    code: zod().string(),
    field: zod().string(),
    message: zod().string(),
    /** A string or a list of valid values; its shape is not pinned down by the spec. */
    suggestion: zod().unknown(),
  }),
);
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

/**
 * One targeting problem as both ends hold it: the wire issue's code, field and message, with the
 * suggestion as text (`undefined` when there is none). The client's `PreflightIssue` and the
 * emulator's targeting issue are this type.
 */
export type TargetingIssue = Pick<ValidationIssue, 'code' | 'field' | 'message'> & {
  suggestion: string | undefined;
};

export const ValidationResultSchema = lazySchema(() =>
  zod().looseObject({
    valid: zod().boolean(),
    normalized: zod().looseObject({}).nullish(),
    /** `null` when clean (not an empty array). */
    issues: zod().array(ValidationIssueSchema).nullable(),
    /** The proxy username a session would use, e.g. `user-country-us-sid-…-source-browser`. */
    proxy_username_preview: zod().string().nullish(),
  }),
);
export type ValidationResult = z.infer<typeof ValidationResultSchema>;
