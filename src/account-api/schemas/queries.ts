/**
 * Request and response shapes of the query service (balance, submit, results), with the wire
 * names of account-api.md. Responses are loose objects: unknown keys pass through, so a field
 * the service adds later reaches the caller instead of failing validation.
 */
import { z } from 'zod';
import { LIMITS, PLATFORMS } from './limits.js';

export const PlatformSchema = z.enum(PLATFORMS);

export const LocationSchema = z.object({
  country: z
    .string()
    .regex(/^[a-z]{2}$/, 'must be a lowercase 2-letter ISO country code, e.g. "us"'),
  region: z.string().min(1).optional(),
  city: z.string().min(1).optional(),
});
export type Location = z.infer<typeof LocationSchema>;

const QuestionSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(LIMITS.charactersPerQuestion, `must be at most ${LIMITS.charactersPerQuestion} characters`);

const uniquePlatforms = z
  .array(PlatformSchema)
  .min(1, 'needs at least one platform')
  .refine((list) => new Set(list).size === list.length, 'must not repeat a platform');

/** One submit, within the documented limits. */
export const SubmitParamsSchema = z.object({
  questions: z
    .array(QuestionSchema)
    .min(1, 'needs at least one question')
    .max(LIMITS.questionsPerSubmit, `at most ${LIMITS.questionsPerSubmit} per submit`),
  platforms: uniquePlatforms,
  locations: z
    .array(LocationSchema)
    .min(1, 'needs at least one location')
    .max(LIMITS.locationsPerSubmit, `at most ${LIMITS.locationsPerSubmit} per submit`),
});
export type SubmitParams = z.input<typeof SubmitParamsSchema>;

/** `runMany`: any number of questions and locations; split into valid submits. */
export const RunManyParamsSchema = z.object({
  questions: z.array(QuestionSchema).min(1, 'needs at least one question'),
  platforms: uniquePlatforms,
  locations: z.array(LocationSchema).min(1, 'needs at least one location'),
});
export type RunManyParams = z.input<typeof RunManyParamsSchema>;

export const BalanceSchema = z.looseObject({ balance: z.number().int() });
export type Balance = z.infer<typeof BalanceSchema>;

export const SourceSchema = z.looseObject({
  title: z.string(),
  url: z.string(),
  publisher: z.string(),
  snippet: z.string(),
});
export type Source = z.infer<typeof SourceSchema>;

export const RawResponseSchema = z.looseObject({
  text: z.string(),
  used_html_fallback: z.boolean().optional(),
  sources: z.array(SourceSchema),
});
export type RawResponse = z.infer<typeof RawResponseSchema>;

export const RowStatusSchema = z.enum(['pending', 'success', 'failed']);
export type RowStatus = z.infer<typeof RowStatusSchema>;

/** A row of a submit response: at least these fields (the rest are "not shown"). */
export const SubmittedRowSchema = z.looseObject({
  id: z.string(),
  platform: PlatformSchema,
  status: RowStatusSchema,
  raw_response: RawResponseSchema.nullable(),
});
export type SubmittedRow = z.infer<typeof SubmittedRowSchema>;

/** A row read by polling: the location it ran against, its question and timestamps. */
export const ResultRowSchema = SubmittedRowSchema.extend({
  question: z.string(),
  country: z.string(),
  region: z.string(),
  city: z.string(),
  created: z.string(),
  updated: z.string(),
});
export type ResultRow = z.infer<typeof ResultRowSchema>;

export const SubmitResponseSchema = z.looseObject({
  request_id: z.string(),
  results: z.array(SubmittedRowSchema),
});
export type SubmitResponse = z.infer<typeof SubmitResponseSchema>;

export const BatchSchema = z.looseObject({
  request_id: z.string(),
  results: z.array(ResultRowSchema),
});
export type Batch = z.infer<typeof BatchSchema>;

/** @deprecated Renamed `BatchSchema` (schemas are PascalCase in both clients). */
export const batchSchema = BatchSchema;
/** @deprecated Renamed `SubmitParamsSchema` (schemas are PascalCase in both clients). */
export const submitParamsSchema = SubmitParamsSchema;
