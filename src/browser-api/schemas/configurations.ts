/** Schemas of `POST /configurations/validate`. */
import { z } from 'zod';
import type { ConnectionType, FilterMode, Protocol, SessionType } from './vocabulary.js';

/**
 * Only types are checked before sending, not the vocabulary: this endpoint's job is to judge a
 * config and answer with issues and suggestions (e.g. `unsupported_filter_mode`), so a wrong
 * value is passed to the service rather than rejected here.
 */
export const ConfigurationParamsSchema = z.looseObject({
  connection_type: z.string().optional(),
  session_type: z.string().optional(),
  protocol: z.string().optional(),
  country: z.string().optional(),
  region: z.string().optional(),
  filter_mode: z.string().optional(),
});

/** Known values autocomplete; any string is accepted (see `ConfigurationParamsSchema`). */
type Loose<T extends string> = T | (string & {});

export interface ConfigurationParams {
  connection_type?: Loose<ConnectionType>;
  session_type?: Loose<SessionType>;
  protocol?: Loose<Protocol>;
  country?: string;
  region?: string;
  filter_mode?: Loose<FilterMode>;
  /** Other fields the service accepts are not shown by the spec; they are passed through. */
  [field: string]: unknown;
}

export const ValidationIssueSchema = z.looseObject({
  code: z.string(),
  field: z.string(),
  message: z.string(),
  /** A string or a list of valid values; its shape is not pinned down by the spec. */
  suggestion: z.unknown(),
});
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

export const ValidationResultSchema = z.looseObject({
  valid: z.boolean(),
  normalized: z.looseObject({}).nullish(),
  /** `null` when clean (not an empty array). */
  issues: z.array(ValidationIssueSchema).nullable(),
  /** The proxy username a session would use, e.g. `user-country-us-sid-…-source-browser`. */
  proxy_username_preview: z.string().nullish(),
});
export type ValidationResult = z.infer<typeof ValidationResultSchema>;
