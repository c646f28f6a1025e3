/**
 * Standard Webhooks signing (https://www.standardwebhooks.com) with the client's own scheme,
 * `standardWebhooks` (its tests check it against the reference `standardwebhooks` package):
 * `webhook-signature` carries `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
 * one entry per active secret, space-separated; the key is the base64 part of a `whsec_` secret.
 */
import { randomBytes } from 'node:crypto';
import { standardWebhooks } from '../../account-api/webhook-signature.js';

export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const bytes = Buffer.from(body, 'utf8');
  return secrets
    .map((secret) => standardWebhooks.sign(secret, id, timestampSeconds, bytes))
    .join(' ');
}
