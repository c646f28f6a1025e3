/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-signature` carries
 * `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one entry per active
 * secret, space-separated; the key is the base64 part of a `whsec_` secret.
 */
import { createHmac, randomBytes } from 'node:crypto';

export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const mac = createHmac('sha256', keyOf(secret))
        .update(`${id}.${timestampSeconds}.${body}`)
        .digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
}
