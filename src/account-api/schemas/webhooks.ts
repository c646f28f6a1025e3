/**
 * Schemas of `/webhooks`. Where the spec says "not shown" (list containers, the id field's name,
 * bodies of PUT and DELETE) nothing beyond the documented fields is required.
 */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { LIMITS } from './limits.js';

export const LastDeliverySchema = lazySchema(() =>
  zod().looseObject({
    at: zod().string().nullable().optional(),
    status: zod().string().nullable().optional(),
    response_code: zod().number().int().nullable(),
  }),
);
export type LastDelivery = z.infer<typeof LastDeliverySchema>;

/**
 * A webhook as list and fetch return it. The identifier's field name is not documented: read
 * it with `webhookIdOf()`.
 */
export const WebhookSchema = lazySchema(() =>
  zod().looseObject({
    url: zod().string(),
    events: zod().array(zod().string()),
    description: zod().string().optional(),
    enabled: zod().boolean().optional(),
    last_delivery: LastDeliverySchema.nullable().optional(),
  }),
);
export type Webhook = z.infer<typeof WebhookSchema>;

export const CreatedWebhookSchema = lazySchema(() =>
  WebhookSchema.extend({ secret: zod().string() }),
);
export type CreatedWebhook = z.infer<typeof CreatedWebhookSchema>;

export const RotationSchema = lazySchema(() =>
  zod().looseObject({
    secret: zod().string(),
    previous_secret_valid_until: zod().string().nullable(),
  }),
);
export type SecretRotation = z.infer<typeof RotationSchema>;

/** What create and replace send: replace sends every field, so none falls back to a default. */
export const WebhookInputSchema = lazySchema(() =>
  zod().object({
    url: zod()
      .string()
      .url('must be a URL')
      .max(LIMITS.webhookUrlLength, `must be at most ${LIMITS.webhookUrlLength} characters`),
    /**
     * Names from `webhooks.eventTypes()`. The service owns that vocabulary (it can add types), so
     * only the shape is checked here; an unknown name is the service's to refuse.
     */
    events: zod().array(zod().string().min(1)).min(1, 'needs at least one event type'),
    description: zod()
      .string()
      .max(
        LIMITS.webhookDescriptionLength,
        `must be at most ${LIMITS.webhookDescriptionLength} characters`,
      )
      .optional(),
    enabled: zod().boolean().optional(),
  }),
);
export type WebhookCreateParams = z.input<typeof WebhookInputSchema>;
/** A complete webhook for `replace` (PUT): every field explicit. */
export type WebhookReplaceParams = Required<WebhookCreateParams>;

/** `update`'s patch: any subset, each field under the same rules as create. */
export const WebhookPatchSchema = lazySchema(() => WebhookInputSchema.partial());

export const EventTypeSchema = lazySchema(() =>
  zod().looseObject({
    type: zod().string(),
    category: zod().string(),
    description: zod().string(),
  }),
);
export type EventType = z.infer<typeof EventTypeSchema>;

/** The identifier of a webhook, whatever the field is called (`id`, `webhook_id`, `uuid`). */
export function webhookIdOf(webhook: Record<string, unknown>): string {
  for (const key of ['id', 'webhook_id', 'uuid']) {
    const value = webhook[key];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  throw new TypeError('webhookIdOf: the webhook has no id, webhook_id or uuid field');
}
