/**
 * `/webhooks/...`: CRUD, event types and secret rotation. Choices the spec leaves open:
 * the identifier field is `id` (a UUID); list and event-types answer a bare JSON array; create
 * answers 201, fetch/replace/rotate 200, delete 204 with no body; an unknown id is 404
 * `{error: 'Not found'}`; invalid input is 400 `{field: [messages]}`. The secret appears only in
 * the create and rotate answers. Webhook calls need a valid key but no purchase, and are not
 * rate limited.
 */
import { randomUUID } from 'node:crypto';
import {
  accountNotFound,
  addFieldError,
  type FieldErrors,
  fieldErrors,
} from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { authenticate } from './auth.js';
import { type AccountServiceContext, nowIso } from './context.js';
import { EVENT_TYPE_NAMES, EVENT_TYPES } from './events.js';
import { newSigningSecret } from './signing.js';
import type { WebhookRecord } from './state.js';

export const MAX_URL_LENGTH = 500;
export const MAX_DESCRIPTION_LENGTH = 200;

interface WebhookInput {
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
}

/** The public view: never the secret. */
export function webhookView(hook: WebhookRecord) {
  return {
    id: hook.id,
    url: hook.url,
    events: [...hook.events],
    description: hook.description,
    enabled: hook.enabled,
    created: hook.created,
    updated: hook.updated,
    last_delivery: { ...hook.lastDelivery },
  };
}

export function registerWebhookRoutes(routes: RouteRegistrar, ctx: AccountServiceContext): void {
  const hooksOf = (req: Parameters<typeof authenticate>[1]) =>
    ctx.states.of(authenticate(ctx, req).id).webhooks;
  const find = (req: Parameters<typeof authenticate>[1], id: string | undefined) => {
    const hook = hooksOf(req).get(id ?? '');
    if (!hook) throw accountNotFound();
    return hook;
  };

  // Registered before `/webhooks/:id` so `event-types` is never read as an id.
  routes.add('GET', '/webhooks/event-types', ({ req }) => {
    authenticate(ctx, req);
    return { body: EVENT_TYPES.map((e) => ({ ...e })) };
  });

  routes.add('POST', '/webhooks', ({ req, body }) => {
    const hooks = hooksOf(req);
    const input = validateWebhook(body);
    const now = nowIso(ctx.clock);
    const hook: WebhookRecord = {
      id: randomUUID(),
      ...input,
      created: now,
      updated: now,
      secret: newSigningSecret(),
      previousSecret: undefined,
      previousValidUntil: undefined,
      lastDelivery: { at: null, status: 'never', response_code: null },
    };
    hooks.set(hook.id, hook);
    return { status: 201, body: { ...webhookView(hook), secret: hook.secret } };
  });

  routes.add('GET', '/webhooks', ({ req }) => ({
    body: [...hooksOf(req).values()].map(webhookView),
  }));

  routes.add('GET', '/webhooks/:id', ({ req, params }) => ({
    body: webhookView(find(req, params.id)),
  }));

  routes.add('PUT', '/webhooks/:id', ({ req, params, body }) => {
    const hook = find(req, params.id);
    // Full replacement: whatever is omitted reverts to its default.
    Object.assign(hook, validateWebhook(body), { updated: nowIso(ctx.clock) });
    return { body: webhookView(hook) };
  });

  routes.add('DELETE', '/webhooks/:id', ({ req, params }) => {
    const hook = find(req, params.id);
    hooksOf(req).delete(hook.id);
    return { status: 204 };
  });

  routes.add('POST', '/webhooks/:id/rotate-secret', ({ req, params }) => {
    const hook = find(req, params.id);
    const window = ctx.options.rotationWindowMs;
    hook.previousSecret = window === null ? undefined : hook.secret;
    hook.previousValidUntil = window === null ? undefined : ctx.clock.now() + window;
    hook.secret = newSigningSecret();
    hook.updated = nowIso(ctx.clock);
    return {
      body: {
        ...webhookView(hook),
        secret: hook.secret,
        previous_secret_valid_until:
          hook.previousValidUntil === undefined
            ? null
            : new Date(hook.previousValidUntil).toISOString(),
      },
    };
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Create and replace share one rule set: defaults fill what is omitted. */
export function validateWebhook(body: unknown): WebhookInput {
  const errors: FieldErrors = {};
  if (!isRecord(body)) {
    throw fieldErrors({ non_field_errors: ['Invalid data. Expected a JSON object.'] });
  }
  const { url, events, description, enabled } = body;
  if (url === undefined || url === null || url === '') {
    addFieldError(errors, 'url', 'This field is required.');
  } else if (typeof url !== 'string') {
    addFieldError(errors, 'url', 'Expected a string.');
  } else {
    if (url.length > MAX_URL_LENGTH) {
      addFieldError(
        errors,
        'url',
        `Ensure this field has no more than ${MAX_URL_LENGTH} characters.`,
      );
    }
    if (!/^https?:\/\/[^\s]+$/i.test(url) || !URL.canParse(url)) {
      addFieldError(errors, 'url', 'Enter a valid http(s) URL.');
    }
  }
  if (events === undefined || events === null) {
    addFieldError(errors, 'events', 'This field is required.');
  } else if (!Array.isArray(events) || events.some((e) => typeof e !== 'string')) {
    addFieldError(errors, 'events', 'Expected a list of event type strings.');
  } else {
    if (events.length === 0) addFieldError(errors, 'events', 'This list may not be empty.');
    for (const e of events as string[]) {
      if (!EVENT_TYPE_NAMES.has(e)) {
        addFieldError(
          errors,
          'events',
          `"${e.slice(0, 60)}" is not a known event type (see /webhooks/event-types).`,
        );
      }
    }
  }
  if (description !== undefined && description !== null) {
    if (typeof description !== 'string') {
      addFieldError(errors, 'description', 'Expected a string.');
    } else if (description.length > MAX_DESCRIPTION_LENGTH) {
      addFieldError(
        errors,
        'description',
        `Ensure this field has no more than ${MAX_DESCRIPTION_LENGTH} characters.`,
      );
    }
  }
  if (enabled !== undefined && enabled !== null && typeof enabled !== 'boolean') {
    addFieldError(errors, 'enabled', 'Must be a valid boolean.');
  }
  if (Object.keys(errors).length > 0) throw fieldErrors(errors);
  return {
    url: url as string,
    events: [...new Set(events as string[])],
    description: typeof description === 'string' ? description : '',
    enabled: typeof enabled === 'boolean' ? enabled : true,
  };
}
