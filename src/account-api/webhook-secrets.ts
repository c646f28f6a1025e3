/**
 * What counts as a signing secret. A verifier fails closed: an empty, short or garbled secret
 * (an unset environment variable, a string passed where a list was meant and split into
 * characters) would let anyone who guesses it forge deliveries, so it is an error before any
 * signature is computed, never a secret that is tried.
 */
import { WebhookVerificationError } from './webhook-errors.js';

/**
 * The least key material a secret may carry, in bytes (128 bits). The service's own secrets
 * (`whsec_` + base64 of 24 random bytes) carry 24.
 */
export const MIN_SECRET_BYTES = 16;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The HMAC key of a secret: the base64 part of a `whsec_` secret, else the UTF-8 bytes. */
export function keyOf(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

function invalid(field: string, rule: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_options', `${field} ${rule}`, field);
}

/** Throws `WebhookVerificationError` (reason `invalid_options`) unless `secret` is usable. */
export function checkSecret(secret: unknown, field: string): string {
  if (typeof secret !== 'string') {
    throw invalid(field, `must be a string, got ${secret === null ? 'null' : typeof secret}`);
  }
  if (secret.trim() === '') throw invalid(field, 'must not be empty');
  if (secret.startsWith('whsec_') && !BASE64.test(secret.slice('whsec_'.length))) {
    throw invalid(field, 'must be base64 after its whsec_ prefix');
  }
  if (keyOf(secret).length < MIN_SECRET_BYTES) {
    throw invalid(field, `must carry at least ${MIN_SECRET_BYTES} bytes of key material`);
  }
  return secret;
}

/**
 * `secrets` as a checked list: a single string is one secret (never its characters), a list
 * must be non-empty and hold only usable secrets. A hole of a sparse list (`[, 'whsec_…']`) is
 * checked as the `undefined` it reads as, so it fails like one (`map` would skip it).
 */
export function checkSecretList(secrets: unknown, field = 'options.secrets'): string[] {
  if (typeof secrets === 'string') return [checkSecret(secrets, field)];
  if (!Array.isArray(secrets)) {
    throw invalid(field, 'must be a secret or a list of secrets');
  }
  if (secrets.length === 0) throw invalid(field, 'must hold at least one secret');
  return Array.from(secrets, (secret: unknown, index) => checkSecret(secret, `${field}[${index}]`));
}
