/**
 * Request and response shapes of the query service (balance, submit, results), with the wire
 * names of account-api.md. Responses are loose objects: unknown keys pass through, so a field
 * the service adds later reaches the caller instead of failing validation.
 */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { LIMITS, PLATFORMS } from './limits.js';

export const PlatformSchema = lazySchema(() => zod().enum(PLATFORMS));

export const LocationSchema = lazySchema(() =>
  zod().object({
    country: zod()
      .string()
      .regex(/^[a-z]{2}$/, 'must be a lowercase 2-letter ISO country code, e.g. "us"'),
    region: zod().string().min(1).optional(),
    city: zod().string().min(1).optional(),
  }),
);
export type Location = z.infer<typeof LocationSchema>;

const QuestionSchema = lazySchema(() =>
  zod()
    .string()
    .min(1, 'must not be empty')
    .max(
      LIMITS.charactersPerQuestion,
      `must be at most ${LIMITS.charactersPerQuestion} characters`,
    ),
);

const uniquePlatforms = lazySchema(() =>
  zod()
    .array(PlatformSchema)
    .min(1, 'needs at least one platform')
    .refine((list) => new Set(list).size === list.length, 'must not repeat a platform'),
);

/** One submit, within the documented limits. */
export const SubmitParamsSchema = lazySchema(() =>
  zod().object({
    questions: zod()
      .array(QuestionSchema)
      .min(1, 'needs at least one question')
      .max(LIMITS.questionsPerSubmit, `at most ${LIMITS.questionsPerSubmit} per submit`),
    platforms: uniquePlatforms,
    locations: zod()
      .array(LocationSchema)
      .min(1, 'needs at least one location')
      .max(LIMITS.locationsPerSubmit, `at most ${LIMITS.locationsPerSubmit} per submit`),
  }),
);
export type SubmitParams = z.input<typeof SubmitParamsSchema>;

/** `runMany`: any number of questions and locations; split into valid submits. */
export const RunManyParamsSchema = lazySchema(() =>
  zod().object({
    questions: zod().array(QuestionSchema).min(1, 'needs at least one question'),
    platforms: uniquePlatforms,
    locations: zod().array(LocationSchema).min(1, 'needs at least one location'),
  }),
);
export type RunManyParams = z.input<typeof RunManyParamsSchema>;

export const BalanceSchema = lazySchema(() => zod().looseObject({ balance: zod().number().int() }));
export type Balance = z.infer<typeof BalanceSchema>;

export const SourceSchema = lazySchema(() =>
  zod().looseObject({
    title: zod().string(),
    url: zod().string(),
    publisher: zod().string(),
    snippet: zod().string(),
  }),
);
export type Source = z.infer<typeof SourceSchema>;

export const RawResponseSchema = lazySchema(() =>
  zod().looseObject({
    text: zod().string(),
    used_html_fallback: zod().boolean().optional(),
    sources: zod().array(SourceSchema),
  }),
);
export type RawResponse = z.infer<typeof RawResponseSchema>;

export const RowStatusSchema = lazySchema(() => zod().enum(['pending', 'success', 'failed']));
export type RowStatus = z.infer<typeof RowStatusSchema>;

/** A row of a submit response: at least these fields (the rest are "not shown"). */
export const SubmittedRowSchema = lazySchema(() =>
  zod().looseObject({
    id: zod().string(),
    platform: PlatformSchema,
    status: RowStatusSchema,
    raw_response: RawResponseSchema.nullable(),
  }),
);
export type SubmittedRow = z.infer<typeof SubmittedRowSchema>;

/** A row read by polling: the location it ran against, its question and timestamps. */
export const ResultRowSchema = lazySchema(() =>
  SubmittedRowSchema.extend({
    question: zod().string(),
    country: zod().string(),
    region: zod().string(),
    city: zod().string(),
    created: zod().string(),
    updated: zod().string(),
  }),
);
export type ResultRow = z.infer<typeof ResultRowSchema>;

export const SubmitResponseSchema = lazySchema(() =>
  zod().looseObject({
    request_id: zod().string(),
    results: zod().array(SubmittedRowSchema),
  }),
);
export type SubmitResponse = z.infer<typeof SubmitResponseSchema>;

export const BatchSchema = lazySchema(() =>
  zod().looseObject({
    request_id: zod().string(),
    results: zod().array(ResultRowSchema),
  }),
);
export type Batch = z.infer<typeof BatchSchema>;

/** @deprecated Renamed `BatchSchema` (schemas are PascalCase in both clients). */
export const batchSchema = BatchSchema;
/** @deprecated Renamed `SubmitParamsSchema` (schemas are PascalCase in both clients). */
export const submitParamsSchema = SubmitParamsSchema;
