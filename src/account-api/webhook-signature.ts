/**
 * Verifying webhook deliveries. The service does not document its signing scheme, so the scheme
 * is pluggable; the default is Standard Webhooks (https://www.standardwebhooks.com), which is
 * what the emulator sends: `webhook-id`, `webhook-timestamp` (unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, several space-separated
 * during a secret rotation. Checks: the timestamp within `tolerance` in both directions (no
 * replays, no far-future stamps), then each active secret with `timingSafeEqual`, reporting
 * which one matched so an operator knows when the previous one can be dropped.
 *
 * It fails closed: every option is checked before any signature is computed, and anything
 * malformed (a secret that is empty, short or not a string, a tolerance that is not a finite
 * non-negative number, a body that is not bytes, no headers) is a `WebhookVerificationError`,
 * never a delivery that verifies and never a TypeError.
 */
import { nodeCrypto } from '../http/node-builtins.js';
import type { SecretRing } from './secret-ring.js';
import { WebhookVerificationError } from './webhook-errors.js';
import { checkSecretList, keyOf } from './webhook-secrets.js';

export type HeaderSource =
  | Headers
  | Record<string, string | readonly string[] | undefined>
  | { get(name: string): string | null };

export interface SignedMessage {
  id: string;
  /** Unix seconds. */
  timestamp: number;
  /** Candidate signatures, each comparable with `sign()`'s output. */
  signatures: string[];
}

export interface WebhookSignatureScheme {
  readonly name: string;
  /** Reads the message id, timestamp and signatures; undefined when a header is missing. */
  read(header: (name: string) => string | undefined): SignedMessage | undefined;
  /** The signature `secret` gives this message. */
  sign(secret: string, id: string, timestamp: number, body: Buffer): string;
}

export const standardWebhooks: WebhookSignatureScheme = {
  name: 'standard-webhooks',
  read(header) {
    const id = header('webhook-id');
    const timestamp = header('webhook-timestamp');
    const signature = header('webhook-signature');
    if (!id || !timestamp || !signature || !/^\d+$/.test(timestamp)) return undefined;
    // An empty entry (two spaces) matches nothing: its length differs from every signature.
    return { id, timestamp: Number(timestamp), signatures: signature.split(' ') };
  },
  sign(secret, id, timestamp, body) {
    const mac = nodeCrypto()
      .createHmac('sha256', keyOf(secret))
      .update(`${id}.${timestamp}.`)
      .update(body)
      .digest('base64');
    return `v1,${mac}`;
  },
};

export interface VerifyWebhookOptions {
  /**
   * Accepted secrets, current first; a single string is one secret. Give this or `ring`. Each
   * must carry at least `MIN_SECRET_BYTES` (16) bytes of key material.
   */
  secrets?: string | readonly string[] | undefined;
  /** A SecretRing, which drops the previous secret when its window ends. */
  ring?: SecretRing | undefined;
  /**
   * Largest allowed distance between the timestamp and now, either way, in seconds: a finite
   * number >= 0. Default 300.
   */
  tolerance?: number | undefined;
  /** Signing scheme. Default `standardWebhooks` (what the emulator sends). */
  scheme?: WebhookSignatureScheme | undefined;
  /** Clock in ms. Default `Date.now`. */
  now?: (() => number) | undefined;
}

export interface VerifiedWebhook<T = unknown> {
  id: string;
  timestamp: number;
  /** Which secret matched: `current`, or `previous` (the old one, inside its rotation window). */
  matched: 'current' | 'previous';
  /** Index of the matching secret in the list tried (0 = current). */
  secretIndex: number;
  /** The parsed JSON body (undefined when the body is not JSON). */
  payload: T;
}

function headerReader(headers: HeaderSource): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (name) => (headers as { get(n: string): string | null }).get(name) ?? undefined;
  }
  const lower = new Map(
    Object.entries(headers as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), v]),
  );
  return (name) => {
    const value = lower.get(name.toLowerCase());
    if (Array.isArray(value)) return value.join(' ');
    return typeof value === 'string' ? value : undefined;
  };
}

interface CheckedOptions {
  secrets: string[];
  scheme: WebhookSignatureScheme;
  tolerance: number;
  now: () => number;
}

function invalidOption(field: string, rule: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_options', `${field} ${rule}`, field);
}

/** Every option checked, so that nothing below can be reached with a fail-open setting. */
function checkOptions(options: VerifyWebhookOptions): CheckedOptions {
  if (options === null || typeof options !== 'object') {
    throw invalidOption('options', 'must be an object with `secrets` or `ring`');
  }
  const { ring, scheme = standardWebhooks, tolerance = 300, now = Date.now } = options;
  if (ring !== undefined && options.secrets !== undefined) {
    throw invalidOption('options', 'takes `secrets` or `ring`, not both');
  }
  if (ring !== undefined && typeof (ring as SecretRing | null)?.secrets !== 'function') {
    throw invalidOption('options.ring', 'must be a SecretRing');
  }
  if (ring === undefined && options.secrets === undefined) {
    throw new WebhookVerificationError(
      'no_secrets',
      'no secret to verify with: pass `secrets` or `ring`',
    );
  }
  const secrets = checkSecretList(ring ? ring.secrets() : options.secrets);
  // Number.isFinite is false for anything that is not a number: no typeof check needed.
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw invalidOption(
      'options.tolerance',
      `must be a finite number of seconds >= 0, got ${String(tolerance)}`,
    );
  }
  if (typeof now !== 'function') throw invalidOption('options.now', 'must be a function');
  if (
    scheme === null ||
    typeof scheme !== 'object' ||
    typeof scheme.read !== 'function' ||
    typeof scheme.sign !== 'function'
  ) {
    throw invalidOption('options.scheme', 'must have read() and sign()');
  }
  return { secrets, scheme, tolerance, now };
}

function bodyBytes(rawBody: unknown): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody);
  // A Buffer is a Uint8Array: a view of the same bytes, never a copy of a large body.
  if (rawBody instanceof Uint8Array) {
    return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  }
  throw new WebhookVerificationError(
    'invalid_body',
    `the body must be the raw request body as a string, Buffer or Uint8Array (before JSON parsing), got ${rawBody === null ? 'null' : typeof rawBody}`,
  );
}

/** Verifies one delivery against the raw body exactly as received (before any JSON parsing). */
export function verifyWebhook<T = unknown>(
  rawBody: string | Buffer | Uint8Array,
  headers: HeaderSource,
  options: VerifyWebhookOptions,
): VerifiedWebhook<T> {
  const { secrets, scheme, tolerance, now } = checkOptions(options);
  const body = bodyBytes(rawBody);
  if (headers === null || typeof headers !== 'object') {
    throw new WebhookVerificationError('missing_headers', 'no headers object was given');
  }
  const message = scheme.read(headerReader(headers));
  if (!message || !Number.isSafeInteger(message.timestamp)) {
    throw new WebhookVerificationError(
      'missing_headers',
      `missing or malformed ${scheme.name} signature headers`,
    );
  }
  const nowMs = now();
  if (!Number.isFinite(nowMs)) {
    throw invalidOption('options.now', 'must return a finite number of milliseconds');
  }
  const nowSeconds = Math.floor(nowMs / 1000);
  if (!(Math.abs(nowSeconds - message.timestamp) <= tolerance)) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `timestamp ${message.timestamp} is more than ${tolerance} s away from now (${nowSeconds})`,
    );
  }
  for (const [index, secret] of secrets.entries()) {
    const expected = Buffer.from(scheme.sign(secret, message.id, message.timestamp, body));
    for (const candidate of message.signatures) {
      const got = Buffer.from(candidate);
      if (got.length === expected.length && nodeCrypto().timingSafeEqual(got, expected)) {
        let payload: unknown;
        try {
          payload = JSON.parse(body.toString('utf8'));
        } catch {
          payload = undefined;
        }
        return {
          id: message.id,
          timestamp: message.timestamp,
          matched: index === 0 ? 'current' : 'previous',
          secretIndex: index,
          payload: payload as T,
        };
      }
    }
  }
  throw new WebhookVerificationError(
    'no_matching_signature',
    `no signature matches any of the ${secrets.length} accepted secret(s)`,
  );
}
