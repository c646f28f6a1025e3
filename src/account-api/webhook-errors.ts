import { guard, RemoteBrowserError } from '../http/errors.js';

export type WebhookVerificationReason =
  | 'invalid_options'
  | 'invalid_body'
  | 'missing_headers'
  | 'timestamp_out_of_tolerance'
  | 'no_matching_signature'
  | 'no_secrets';

/**
 * Every way a delivery can fail verification, including a verifier that is set up wrongly
 * (`invalid_options`, with the option in `field`): a handler that answers 400 on this error
 * rejects in every case, so a mistake in the set-up never turns into an accepted delivery.
 */
export class WebhookVerificationError extends RemoteBrowserError {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
    /** The option at fault, for `invalid_options` (e.g. `options.tolerance`). */
    readonly field?: string,
  ) {
    super(`verifyWebhook: ${message}`);
  }

  protected override details(): Record<string, unknown> {
    return this.field === undefined
      ? { reason: this.reason }
      : { reason: this.reason, field: this.field };
  }
}

export const isWebhookVerificationError = guard<WebhookVerificationError>(
  WebhookVerificationError,
  'WebhookVerificationError',
);
