/**
 * `/webhooks`: list, create, fetch, replace (PUT), delete, rotate the secret, event types.
 * PUT is a full replacement where anything omitted reverts to its default (description empty,
 * enabled true), so `update`, `enable` and `disable` read the webhook, merge, and PUT the whole
 * object: an update never re-enables a disabled webhook or wipes its description.
 * Secrets returned by create and rotate are registered for redaction at once, and print as
 * `[REDACTED]` under `util.inspect` and `JSON.stringify` (the property itself stays readable).
 */
import type { CallOptions } from '../http/call-options.js';
import { fullyRedacted, hideFields } from '../http/hidden-fields.js';
import { parseRequest } from '../http/request-validation.js';
import type { Transport } from '../http/transport.js';
import {
  type CreatedWebhook,
  createdWebhookSchema,
  type EventType,
  eventTypeSchema,
  listOf,
  rotationSchema,
  type SecretRotation,
  type Webhook,
  type WebhookCreateParams,
  type WebhookReplaceParams,
  webhookInputSchema,
  webhookSchema,
} from './schemas.js';

const path = (id: string) => `/webhooks/${encodeURIComponent(id)}`;
const secretMask = { secret: fullyRedacted };

export class Webhooks {
  constructor(private readonly transport: Transport) {}

  list(options: CallOptions = {}): Promise<Webhook[]> {
    return this.transport.request({
      ...options,
      method: 'GET',
      path: '/webhooks',
      schema: listOf(webhookSchema),
      what: 'webhooks.list',
    });
  }

  async create(params: WebhookCreateParams, options: CallOptions = {}): Promise<CreatedWebhook> {
    const body = parseRequest('webhooks.create', webhookInputSchema, params);
    const created = await this.transport.request({
      ...options,
      method: 'POST',
      path: '/webhooks',
      body,
      schema: createdWebhookSchema,
      what: 'webhooks.create',
    });
    return hideFields(created, secretMask);
  }

  retrieve(id: string, options: CallOptions = {}): Promise<Webhook> {
    return this.transport.request({
      ...options,
      method: 'GET',
      path: path(id),
      schema: webhookSchema,
      what: `webhooks.retrieve(${id})`,
    });
  }

  /** PUT with every field explicit: nothing falls back to a default by omission. */
  async replace(
    id: string,
    params: WebhookReplaceParams,
    options: CallOptions = {},
  ): Promise<Webhook> {
    const body = parseRequest('webhooks.replace', webhookInputSchema.required(), params);
    const replaced = await this.transport.request<unknown>({
      ...options,
      method: 'PUT',
      path: path(id),
      body,
      what: `webhooks.replace(${id})`,
    });
    // The PUT answer's shape is not documented: fall back to what was sent.
    const parsed = webhookSchema.safeParse(replaced);
    return parsed.success ? parsed.data : { ...body };
  }

  /** Reads the webhook, applies `patch`, and PUTs the complete result. */
  async update(
    id: string,
    patch: Partial<WebhookReplaceParams>,
    options: CallOptions = {},
  ): Promise<Webhook> {
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
      path: path(id),
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
      path: `${path(id)}/rotate-secret`,
      schema: rotationSchema,
      what: `webhooks.rotateSecret(${id})`,
    });
    return hideFields(rotation, secretMask);
  }

  eventTypes(options: CallOptions = {}): Promise<EventType[]> {
    return this.transport.request({
      ...options,
      method: 'GET',
      path: '/webhooks/event-types',
      schema: listOf(eventTypeSchema),
      what: 'webhooks.eventTypes',
    });
  }
}
