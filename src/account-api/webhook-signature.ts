/**
 * Verifying webhook deliveries. The service does not document its signing scheme, so the scheme
 * is pluggable; the default is Standard Webhooks (https://www.standardwebhooks.com), which is
 * what the emulator sends: `webhook-id`, `webhook-timestamp` (unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, several space-separated
 * during a secret rotation. Checks: the timestamp within `tolerance` in both directions (no
 * replays, no far-future stamps), then each active secret with `timingSafeEqual`, reporting
 * which one matched so an operator knows when the previous one can be dropped.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { RemoteBrowserError } from '../http/errors.js';
import { registerSecret } from '../http/redact.js';

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

function keyOf(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

export const standardWebhooks: WebhookSignatureScheme = {
  name: 'standard-webhooks',
  read(header) {
    const id = header('webhook-id');
    const timestamp = header('webhook-timestamp');
    const signature = header('webhook-signature');
    if (!id || !timestamp || !signature || !/^\d+$/.test(timestamp)) return undefined;
    return { id, timestamp: Number(timestamp), signatures: signature.split(' ').filter(Boolean) };
  },
  sign(secret, id, timestamp, body) {
    const mac = createHmac('sha256', keyOf(secret))
      .update(`${id}.${timestamp}.`)
      .update(body)
      .digest('base64');
    return `v1,${mac}`;
  },
};

export type WebhookVerificationReason =
  | 'missing_headers'
  | 'timestamp_out_of_tolerance'
  | 'no_matching_signature'
  | 'no_secrets';

export class WebhookVerificationError extends RemoteBrowserError {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(`verifyWebhook: ${message}`);
  }

  protected override details(): Record<string, unknown> {
    return { reason: this.reason };
  }
}

/**
 * The secrets a receiver accepts: the current one, and the previous one until its
 * `previous_secret_valid_until` passes (then it is dropped for good).
 */
export class SecretRing {
  #current: string;
  #previous: string | undefined;
  #previousUntil: number | undefined;
  readonly #now: () => number;

  constructor(init: {
    current: string;
    previous?: string | undefined;
    /** When `previous` stops being accepted; null or absent with a previous means "now". */
    previousValidUntil?: string | number | Date | null | undefined;
    /** Clock (tests). Default `Date.now`. */
    now?: () => number;
  }) {
    this.#now = init.now ?? Date.now;
    this.#current = init.current;
    registerSecret(init.current);
    this.#setPrevious(init.previous, init.previousValidUntil);
  }

  /** Applies a `rotateSecret()` answer: the current secret becomes the previous one. */
  rotate(rotation: { secret: string; previous_secret_valid_until: string | null }): void {
    const old = this.#current;
    this.#current = rotation.secret;
    registerSecret(rotation.secret);
    this.#setPrevious(
      rotation.previous_secret_valid_until === null ? undefined : old,
      rotation.previous_secret_valid_until,
    );
  }

  get current(): string {
    return this.#current;
  }

  /** The previous secret while it is still valid. */
  get previous(): string | undefined {
    if (this.#previous !== undefined && (this.#previousUntil ?? 0) <= this.#now()) {
      this.#previous = undefined;
      this.#previousUntil = undefined;
    }
    return this.#previous;
  }

  /** Current first, then the previous one while valid. */
  secrets(): string[] {
    const previous = this.previous;
    return previous === undefined ? [this.#current] : [this.#current, previous];
  }

  #setPrevious(previous: string | undefined, until: string | number | Date | null | undefined) {
    this.#previous = previous;
    this.#previousUntil =
      previous === undefined || until === null || until === undefined
        ? undefined
        : new Date(until).getTime();
    registerSecret(previous);
  }
}

export interface VerifyWebhookOptions {
  /** Accepted secrets, current first. Give this or `ring`. */
  secrets?: readonly string[] | undefined;
  /** A SecretRing, which drops the previous secret when its window ends. */
  ring?: SecretRing | undefined;
  /** Largest allowed distance between the timestamp and now, either way, in seconds. Default 300. */
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

/** Verifies one delivery against the raw body exactly as received (before any JSON parsing). */
export function verifyWebhook<T = unknown>(
  rawBody: string | Buffer | Uint8Array,
  headers: HeaderSource,
  options: VerifyWebhookOptions,
): VerifiedWebhook<T> {
  const scheme = options.scheme ?? standardWebhooks;
  const secrets = options.ring ? options.ring.secrets() : [...(options.secrets ?? [])];
  if (secrets.length === 0) {
    throw new WebhookVerificationError('no_secrets', 'no secret to verify with');
  }
  const message = scheme.read(headerReader(headers));
  if (!message) {
    throw new WebhookVerificationError(
      'missing_headers',
      `missing or malformed ${scheme.name} signature headers`,
    );
  }
  const tolerance = options.tolerance ?? 300;
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(nowSeconds - message.timestamp) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `timestamp ${message.timestamp} is more than ${tolerance} s away from now (${nowSeconds})`,
    );
  }
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody);
  for (const [index, secret] of secrets.entries()) {
    const expected = Buffer.from(scheme.sign(secret, message.id, message.timestamp, body));
    for (const candidate of message.signatures) {
      const got = Buffer.from(candidate);
      if (got.length === expected.length && timingSafeEqual(got, expected)) {
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
