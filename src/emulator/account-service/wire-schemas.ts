/**
 * The account service's side of the one contract: the client's account-api schemas, extended
 * with the spec's server-side rules the client does not check (a country the assistants are
 * offered in, `assistant_c` as the `assistantC` option says, known event types, http(s) webhook
 * URLs) and with the emulator's answers where the spec says "not shown" (a webhook's `id` and
 * timestamps, the full row in a submit answer, a notification's fields). Routes parse with
 * these through `parseBody` and answer through `answer` (server/wire.ts); a 400 is keyed by the
 * innermost field (`accountWording`), so a location's bad country is under `country`.
 */
import type { z } from 'zod';
import { NOTIFICATION_ID, NotificationSchema } from '../../account-api/schemas/notifications.js';
import {
  ResultRowSchema,
  SubmitParamsSchema,
  SubmitResponseSchema,
} from '../../account-api/schemas/queries.js';
import {
  CreatedWebhookSchema,
  type EventType,
  RotationSchema,
  WebhookInputSchema,
  WebhookSchema,
} from '../../account-api/schemas/webhooks.js';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { shown } from '../../http/request-validation.js';
import type { ResolvedAccountOptions } from './account-options.js';
import { isKnownCountry } from './location-normalizer.js';

/**
 * The event types this service emits (`GET /webhooks/event-types`), the catalogue a webhook's
 * `events` are checked against.
 */
export const EVENT_TYPES: readonly EventType[] = [
  {
    type: 'credits.low',
    category: 'credits',
    description: 'A submit brought the balance under the low-credit threshold.',
  },
  {
    type: 'credits.granted',
    category: 'credits',
    description: "The month's free credits were granted by the first balance read of the month.",
  },
  {
    type: 'credits.purchased',
    category: 'billing',
    description: 'A credit-pack purchase completed and its credits were added.',
  },
  {
    type: 'notification.created',
    category: 'notifications',
    description: 'A notification joined the unread queue.',
  },
];

export const EVENT_TYPE_NAMES: ReadonlySet<string> = new Set(EVENT_TYPES.map((e) => e.type));

const COUNTRY_FORMAT = /^[a-z]{2}$/;

/** `POST /llm/submit/`: the client's limits, then what only the service decides. */
export function submitSchema(options: ResolvedAccountOptions) {
  const { platforms, locations } = SubmitParamsSchema.shape;
  return SubmitParamsSchema.extend({
    platforms: platforms.superRefine((list, check) => {
      const at = list.indexOf('assistant_c');
      if (options.assistantC !== 'reject' || at === -1) return;
      const message = 'is currently unavailable: leave "assistant_c" out of platforms';
      check.addIssue({ code: 'custom', path: [at], message });
    }),
    locations: locations.superRefine((list, check) => {
      list.forEach(({ country }, i) => {
        // A malformed code already has the client's format message.
        if (!COUNTRY_FORMAT.test(country)) return;
        const message = !isKnownCountry(country)
          ? `must be an ISO 3166-1 country code (got "${country}")`
          : options.unavailableCountries.has(country)
            ? `must be a country the assistants are offered in (got "${country}")`
            : undefined;
        if (message) check.addIssue({ code: 'custom', path: [i, 'country'], message });
      });
    }),
  });
}
export type SubmitRequest = z.output<ReturnType<typeof submitSchema>>;

/** Create and replace (PUT): the client's rules, http(s) only, event types the service knows. */
export const WebhookRequestSchema = lazySchema(() => {
  const { url, events } = WebhookInputSchema.shape;
  return WebhookInputSchema.extend({
    url: url.refine(
      (value) => !URL.canParse(value) || /^https?:$/.test(new URL(value).protocol),
      'must be an http(s) URL',
    ),
    events: events.superRefine((list, check) => {
      list.forEach((type, i) => {
        if (type === '' || EVENT_TYPE_NAMES.has(type)) return;
        const message = `must be an event type of /webhooks/event-types (got ${shown(type)})`;
        check.addIssue({ code: 'custom', path: [i], message });
      });
    }),
  });
});

/** `DELETE /notifications/{notification_id}`: the path parameter, a UUID. */
export const NotificationIdSchema = lazySchema(() =>
  zod().object({ notification_id: zod().string().regex(NOTIFICATION_ID, 'must be a UUID') }),
);

// The emulator's answers where the spec says "not shown", on the client's own schemas.

/** A submit answers the full rows (`id`, platform, question, location, status, times). */
export const SubmittedAnswerSchema = lazySchema(() =>
  SubmitResponseSchema.extend({ results: zod().array(ResultRowSchema) }),
);

/** The identifier field is `id` (a UUID); `created` and `updated` are ISO timestamps. */
const webhookExtras = () => ({
  id: zod().string(),
  created: zod().string(),
  updated: zod().string(),
});

export const WebhookAnswerSchema = lazySchema(() => WebhookSchema.extend(webhookExtras()));

export const CreatedWebhookAnswerSchema = lazySchema(() =>
  CreatedWebhookSchema.extend(webhookExtras()),
);

/** The rotated webhook, its new secret and the old one's window. */
export const RotationAnswerSchema = lazySchema(() =>
  WebhookAnswerSchema.extend(RotationSchema.shape),
);

export const NotificationAnswerSchema = lazySchema(() =>
  NotificationSchema.extend({
    category: zod().string(),
    title: zod().string(),
    message: zod().string(),
    created: zod().string(),
  }),
);
