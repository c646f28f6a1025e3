/**
 * Request and response shapes of the account service, with the wire names of account-api.md.
 * Responses are loose objects: unknown keys pass through, so a field the service adds later
 * reaches the caller instead of failing validation. Where the spec says "not shown" (list
 * containers, the webhook id field, notification fields) nothing beyond the documented fields
 * is required.
 */
import { z } from 'zod';

export const PLATFORMS = ['assistant_a', 'assistant_b', 'assistant_c'] as const;
/** Platforms the spec marks available; `assistant_c` is valid in the schema but unavailable. */
export const AVAILABLE_PLATFORMS = ['assistant_a', 'assistant_b'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const LIMITS = {
  questionsPerSubmit: 20,
  charactersPerQuestion: 2047,
  locationsPerSubmit: 10,
  submitsPerMinute: 20,
  readsPerMinute: 100,
  webhookUrlLength: 500,
  webhookDescriptionLength: 200,
} as const;

export const platformSchema = z.enum(PLATFORMS);

export const locationSchema = z.object({
  country: z
    .string()
    .regex(/^[a-z]{2}$/, 'must be a lowercase 2-letter ISO country code, e.g. "us"'),
  region: z.string().min(1).optional(),
  city: z.string().min(1).optional(),
});
export type Location = z.infer<typeof locationSchema>;

const questionSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(LIMITS.charactersPerQuestion, `must be at most ${LIMITS.charactersPerQuestion} characters`);

const uniquePlatforms = z
  .array(platformSchema)
  .min(1, 'needs at least one platform')
  .refine((list) => new Set(list).size === list.length, 'must not repeat a platform');

/** One submit, within the documented limits. */
export const submitParamsSchema = z.object({
  questions: z
    .array(questionSchema)
    .min(1, 'needs at least one question')
    .max(LIMITS.questionsPerSubmit, `at most ${LIMITS.questionsPerSubmit} per submit`),
  platforms: uniquePlatforms,
  locations: z
    .array(locationSchema)
    .min(1, 'needs at least one location')
    .max(LIMITS.locationsPerSubmit, `at most ${LIMITS.locationsPerSubmit} per submit`),
});
export type SubmitParams = z.input<typeof submitParamsSchema>;

/** `runMany`: any number of questions and locations; split into valid submits. */
export const runManyParamsSchema = z.object({
  questions: z.array(questionSchema).min(1, 'needs at least one question'),
  platforms: uniquePlatforms,
  locations: z.array(locationSchema).min(1, 'needs at least one location'),
});
export type RunManyParams = z.input<typeof runManyParamsSchema>;

export const balanceSchema = z.looseObject({ balance: z.number().int() });
export type Balance = z.infer<typeof balanceSchema>;

export const sourceSchema = z.looseObject({
  title: z.string(),
  url: z.string(),
  publisher: z.string(),
  snippet: z.string(),
});
export type Source = z.infer<typeof sourceSchema>;

export const rawResponseSchema = z.looseObject({
  text: z.string(),
  used_html_fallback: z.boolean().optional(),
  sources: z.array(sourceSchema),
});
export type RawResponse = z.infer<typeof rawResponseSchema>;

export const rowStatusSchema = z.enum(['pending', 'success', 'failed']);
export type RowStatus = z.infer<typeof rowStatusSchema>;

/** A row of a submit response: at least these fields (the rest are "not shown"). */
export const submittedRowSchema = z.looseObject({
  id: z.string(),
  platform: platformSchema,
  status: rowStatusSchema,
  raw_response: rawResponseSchema.nullable(),
});
export type SubmittedRow = z.infer<typeof submittedRowSchema>;

/** A row read by polling: the location it ran against, its question and timestamps. */
export const resultRowSchema = submittedRowSchema.extend({
  question: z.string(),
  country: z.string(),
  region: z.string(),
  city: z.string(),
  created: z.string(),
  updated: z.string(),
});
export type ResultRow = z.infer<typeof resultRowSchema>;

export const submitResponseSchema = z.looseObject({
  request_id: z.string(),
  results: z.array(submittedRowSchema),
});
export type SubmitResponse = z.infer<typeof submitResponseSchema>;

export const batchSchema = z.looseObject({
  request_id: z.string(),
  results: z.array(resultRowSchema),
});
export type Batch = z.infer<typeof batchSchema>;

export const lastDeliverySchema = z.looseObject({
  at: z.string().nullable().optional(),
  status: z.string().nullable().optional(),
  response_code: z.number().int().nullable(),
});
export type LastDelivery = z.infer<typeof lastDeliverySchema>;

/**
 * A webhook as list and fetch return it. The identifier's field name is not documented: read
 * it with `webhookIdOf()`.
 */
export const webhookSchema = z.looseObject({
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().optional(),
  enabled: z.boolean().optional(),
  last_delivery: lastDeliverySchema.nullable().optional(),
});
export type Webhook = z.infer<typeof webhookSchema>;

export const createdWebhookSchema = webhookSchema.extend({ secret: z.string() });
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>;

export const rotationSchema = z.looseObject({
  secret: z.string(),
  previous_secret_valid_until: z.string().nullable(),
});
export type SecretRotation = z.infer<typeof rotationSchema>;

/** What create and replace send: replace sends every field, so none falls back to a default. */
export const webhookInputSchema = z.object({
  url: z
    .string()
    .url('must be a URL')
    .max(LIMITS.webhookUrlLength, `must be at most ${LIMITS.webhookUrlLength} characters`),
  events: z.array(z.string().min(1)).min(1, 'needs at least one event type'),
  description: z
    .string()
    .max(
      LIMITS.webhookDescriptionLength,
      `must be at most ${LIMITS.webhookDescriptionLength} characters`,
    )
    .optional(),
  enabled: z.boolean().optional(),
});
export type WebhookCreateParams = z.input<typeof webhookInputSchema>;
/** A complete webhook for `replace` (PUT): every field explicit. */
export type WebhookReplaceParams = Required<WebhookCreateParams>;

export const eventTypeSchema = z.looseObject({
  type: z.string(),
  category: z.string(),
  description: z.string(),
});
export type EventType = z.infer<typeof eventTypeSchema>;

/** Fields other than `notification_id` are not documented, so none is required. */
export const notificationSchema = z.looseObject({ notification_id: z.string() });
export type Notification = z.infer<typeof notificationSchema>;

/** The array of a list response; the container is "not shown", so common wrappers are unwrapped. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.preprocess((body) => {
    if (Array.isArray(body)) return body;
    if (body && typeof body === 'object') {
      for (const key of ['results', 'data', 'items', 'webhooks', 'event_types', 'notifications']) {
        const value = (body as Record<string, unknown>)[key];
        if (Array.isArray(value)) return value;
      }
    }
    return body;
  }, z.array(item));
}

/** The identifier of a webhook, whatever the field is called (`id`, `webhook_id`, `uuid`). */
export function webhookIdOf(webhook: Record<string, unknown>): string {
  for (const key of ['id', 'webhook_id', 'uuid']) {
    const value = webhook[key];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  throw new TypeError('webhookIdOf: the webhook has no id, webhook_id or uuid field');
}
