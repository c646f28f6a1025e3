/**
 * `/webhooks`: list, create, fetch, replace (PUT), delete, rotate the secret, event types.
 * PUT is a full replacement where anything omitted reverts to its default (description empty,
 * enabled true), so `update`, `enable` and `disable` read the webhook, merge, and PUT the whole
 * object: an update never re-enables a disabled webhook or wipes its description.
 * Secrets returned by create and rotate are registered for redaction at once, and print as
 * `[REDACTED]` under `util.inspect` and `JSON.stringify` (the property itself stays readable).
 */
import type { CallOptions } from '../../http/call-options.js';
import { fullyRedacted, hideFields } from '../../http/hidden-fields.js';
import { idSegment } from '../../http/path.js';
import { parseRequest } from '../../http/request-validation.js';
import { Resource } from '../../http/resource.js';
import { listOf } from '../schemas/list.js';
import {
  type CreatedWebhook,
  CreatedWebhookSchema,
  type EventType,
  EventTypeSchema,
  RotationSchema,
  type SecretRotation,
  type Webhook,
  type WebhookCreateParams,
  WebhookInputSchema,
  WebhookPatchSchema,
  type WebhookReplaceParams,
  WebhookSchema,
} from '../schemas/webhooks.js';

/** `/webhooks/<id>`, the id checked (an empty one would address the collection) and encoded. */
const path = (what: string, id: unknown) => `/webhooks/${idSegment(what, 'id', id)}`;
const secretMask = { secret: fullyRedacted };

export class Webhooks extends Resource {
  list(options: CallOptions = {}): Promise<Webhook[]> {
    return this.transport.request({
      ...options,
      method: 'GET',
      path: '/webhooks',
      schema: listOf(WebhookSchema),
      what: 'webhooks.list',
    });
  }

  async create(params: WebhookCreateParams, options: CallOptions = {}): Promise<CreatedWebhook> {
    const body = parseRequest('webhooks.create', WebhookInputSchema, params);
    const created = await this.transport.request({
      ...options,
      method: 'POST',
      path: '/webhooks',
      body,
      schema: CreatedWebhookSchema,
      what: 'webhooks.create',
    });
    return hideFields(created, secretMask);
  }

  retrieve(id: string, options: CallOptions = {}): Promise<Webhook> {
    return this.transport.request({
      ...options,
      method: 'GET',
      path: path('webhooks.retrieve', id),
      schema: WebhookSchema,
      what: `webhooks.retrieve(${id})`,
    });
  }

  /** PUT with every field explicit: nothing falls back to a default by omission. */
  async replace(
    id: string,
    params: WebhookReplaceParams,
    options: CallOptions = {},
  ): Promise<Webhook> {
    const segment = path('webhooks.replace', id);
    const body = parseRequest('webhooks.replace', WebhookInputSchema.required(), params);
    const replaced = await this.transport.request<unknown>({
      ...options,
      method: 'PUT',
      path: segment,
      body,
      what: `webhooks.replace(${id})`,
    });
    // The PUT answer's shape is not documented: fall back to what was sent.
    const parsed = WebhookSchema.safeParse(replaced);
    return parsed.success ? parsed.data : { ...body };
  }

  /**
   * Reads the webhook, applies `patch`, and PUTs the complete result. The patch is checked
   * first: a bad one sends nothing, not even the read.
   */
  async update(
    id: string,
    patch: Partial<WebhookReplaceParams>,
    options: CallOptions = {},
  ): Promise<Webhook> {
    path('webhooks.update', id);
    parseRequest('webhooks.update', WebhookPatchSchema, patch, { argument: 'patch' });
    const current = await this.retrieve(id, options);
    const merged: WebhookReplaceParams = {
      url: patch.url ?? current.url,
      events: patch.events ?? current.events,
      description: patch.description ?? current.description ?? '',
      enabled: patch.enabled ?? current.enabled ?? true,
    };
    return this.replace(id, merged, options);
  }

  disable(id: string, options: CallOptions = {}): Promise<Webhook> {
    return this.update(id, { enabled: false }, options);
  }

  enable(id: string, options: CallOptions = {}): Promise<Webhook> {
    return this.update(id, { enabled: true }, options);
  }

  /** Irreversible: the secret goes with it. */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.transport.request({
      ...options,
      method: 'DELETE',
      path: path('webhooks.delete', id),
      what: `webhooks.delete(${id})`,
    });
  }

  /**
   * Issues a new secret. The old one keeps signing until `previous_secret_valid_until` (or
   * stops at once when that is null): feed the answer to `SecretRing.rotate()`. Not retried: a
   * repeated rotation would discard the secret just issued.
   */
  async rotateSecret(id: string, options: CallOptions = {}): Promise<SecretRotation> {
    const rotation = await this.transport.request({
      ...options,
      method: 'POST',
      path: `${path('webhooks.rotateSecret', id)}/rotate-secret`,
      schema: RotationSchema,
      what: `webhooks.rotateSecret(${id})`,
    });
    return hideFields(rotation, secretMask);
  }

  eventTypes(options: CallOptions = {}): Promise<EventType[]> {
    return this.transport.request({
      ...options,
      method: 'GET',
      path: '/webhooks/event-types',
      schema: listOf(EventTypeSchema),
      what: 'webhooks.eventTypes',
    });
  }
}
