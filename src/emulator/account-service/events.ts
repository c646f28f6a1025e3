/**
 * Webhook deliveries (the event types are wire-schemas.ts's EVENT_TYPES). There is deliberately no event for query results: the
 * spec says results arrive only by polling. A delivery is one real POST to the webhook URL,
 * signed per Standard Webhooks with every active secret; its outcome becomes `last_delivery`.
 * No retries: the emulator models the latest attempt only.
 */
import { randomUUID } from 'node:crypto';
import type { ResolvedAccountOptions } from './account-options.js';
import { signatureHeader } from './signing.js';
import type { AccountStates, WebhookRecord } from './state.js';
import type { AccountClock } from './types.js';

export interface DeliveryResult {
  webhook_id: string;
  status: 'success' | 'failed';
  response_code: number | null;
}

export class Events {
  readonly #inflight = new Set<Promise<unknown>>();

  constructor(
    private readonly states: AccountStates,
    private readonly clock: AccountClock,
    private readonly options: ResolvedAccountOptions,
  ) {}

  /** Delivers `type` to every enabled webhook of the account subscribed to it. */
  emit(accountId: string, type: string, data: unknown): Promise<DeliveryResult[]> {
    const hooks = [...this.states.of(accountId).webhooks.values()].filter(
      (w) => w.enabled && w.events.includes(type),
    );
    const done = Promise.all(hooks.map((hook) => this.#deliver(hook, type, data)));
    this.#inflight.add(done);
    void done.finally(() => this.#inflight.delete(done));
    return done;
  }

  /** Resolves when every delivery started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }

  /** The secrets that sign right now: the current one, and the previous one inside its window. */
  activeSecrets(hook: WebhookRecord): string[] {
    const previousActive =
      hook.previousSecret !== undefined &&
      hook.previousValidUntil !== undefined &&
      hook.previousValidUntil > this.clock.now();
    return previousActive ? [hook.secret, hook.previousSecret as string] : [hook.secret];
  }

  async #deliver(hook: WebhookRecord, type: string, data: unknown): Promise<DeliveryResult> {
    const now = this.clock.now();
    const id = `msg_${randomUUID().replaceAll('-', '')}`;
    const timestamp = Math.floor(now / 1000);
    const body = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
    let responseCode: number | null = null;
    try {
      const response = await fetch(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'remote-browser-emulator-webhooks',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(this.activeSecrets(hook), id, timestamp, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.deliveryTimeoutMs),
      });
      responseCode = response.status;
      await response.body?.cancel().catch(() => {});
    } catch {
      // Unreachable, refused or timed out: no response code, as the spec describes.
    }
    const ok = responseCode !== null && responseCode >= 200 && responseCode < 300;
    const status = ok ? 'success' : 'failed';
    hook.last_delivery = { at: new Date(now).toISOString(), status, response_code: responseCode };
    return { webhook_id: hook.id, status, response_code: responseCode };
  }
}
