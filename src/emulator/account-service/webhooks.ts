/**
 * `/webhooks/...`: CRUD, event types and secret rotation. Choices the spec leaves open:
 * the identifier field is `id` (a UUID); list and event-types answer a bare JSON array; create
 * answers 201, fetch/replace/rotate 200, delete 204 with no body; an unknown id is 404
 * `{error: 'Not found'}`; invalid input is 400 `{field: [messages]}`. The secret appears only in
 * the create and rotate answers. Webhook calls need a valid key but no purchase, and are not
 * rate limited.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { EventTypeSchema } from '../../account-api/schemas/webhooks.js';
import { zod } from '../../http/lazy-schema.js';
import { accountNotFound } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { answer, parseBody } from '../server/wire.js';
import { authenticate } from './auth.js';
import type { AccountServiceContext } from './context.js';
import { newSigningSecret } from './signing.js';
import type { WebhookRecord } from './state.js';
import {
  CreatedWebhookAnswerSchema,
  EVENT_TYPES,
  RotationAnswerSchema,
  WebhookAnswerSchema,
  WebhookRequestSchema,
} from './wire-schemas.js';

/** The public view: never the secrets. */
function webhookView({
  secret: _,
  previousSecret: _previous,
  previousValidUntil: _until,
  ...view
}: WebhookRecord): z.input<typeof WebhookAnswerSchema> {
  return view;
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
    return {
      body: answer(
        zod().array(EventTypeSchema),
        EVENT_TYPES.map((e) => ({ ...e })),
      ),
    };
  });

  routes.add('POST', '/webhooks', ({ req, body }) => {
    const hooks = hooksOf(req);
    const input = webhookInput(body);
    const now = ctx.clock.nowIso();
    const hook: WebhookRecord = {
      id: randomUUID(),
      ...input,
      created: now,
      updated: now,
      secret: newSigningSecret(),
      previousSecret: undefined,
      previousValidUntil: undefined,
      last_delivery: { at: null, status: 'never', response_code: null },
    };
    hooks.set(hook.id, hook);
    const created = { ...webhookView(hook), secret: hook.secret };
    return { status: 201, body: answer(CreatedWebhookAnswerSchema, created) };
  });

  routes.add('GET', '/webhooks', ({ req }) => ({
    body: answer(zod().array(WebhookAnswerSchema), [...hooksOf(req).values()].map(webhookView)),
  }));

  routes.add('GET', '/webhooks/:id', ({ req, params }) => ({
    body: answer(WebhookAnswerSchema, webhookView(find(req, params.id))),
  }));

  routes.add('PUT', '/webhooks/:id', ({ req, params, body }) => {
    const hook = find(req, params.id);
    // Full replacement: whatever is omitted reverts to its default.
    Object.assign(hook, webhookInput(body), { updated: ctx.clock.nowIso() });
    return { body: answer(WebhookAnswerSchema, webhookView(hook)) };
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
    hook.updated = ctx.clock.nowIso();
    const until = hook.previousValidUntil;
    const rotation = {
      ...webhookView(hook),
      secret: hook.secret,
      previous_secret_valid_until: until === undefined ? null : new Date(until).toISOString(),
    };
    return { body: answer(RotationAnswerSchema, rotation) };
  });
}

/** Create and replace share one rule set; what is omitted takes its default. */
function webhookInput(body: unknown) {
  const { url, events, description = '', enabled = true } = parseBody(WebhookRequestSchema, body);
  return { url, events: [...new Set(events)], description, enabled };
}
