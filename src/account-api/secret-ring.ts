/**
 * The secrets a receiver accepts: the current one, and the previous one until its
 * `previous_secret_valid_until` passes (then it is dropped for good).
 */
import { registerSecret } from '../http/redact.js';
import { WebhookVerificationError } from './webhook-errors.js';
import { checkSecret } from './webhook-secrets.js';

type Instant = string | number | Date;

/** A time as epoch ms; an unparseable one is an error, never "valid forever". */
function instantMs(value: Instant, field: string): number {
  const ms = value instanceof Date ? value.getTime() : new Date(value).getTime();
  if (!Number.isFinite(ms)) {
    throw new WebhookVerificationError(
      'invalid_options',
      `${field} must be a valid date, got ${JSON.stringify(String(value))}`,
      field,
    );
  }
  return ms;
}

export class SecretRing {
  #current: string;
  #previous: string | undefined;
  #previousUntil: number | undefined;
  readonly #now: () => number;

  constructor(init: {
    current: string;
    previous?: string | undefined;
    /** When `previous` stops being accepted; null or absent with a previous means "now". */
    previousValidUntil?: Instant | null | undefined;
    /** Clock (tests). Default `Date.now`. */
    now?: () => number;
  }) {
    if (init === null || typeof init !== 'object') {
      throw new WebhookVerificationError(
        'invalid_options',
        'new SecretRing() takes { current, previous?, previousValidUntil? }',
        'init',
      );
    }
    if (init.now !== undefined && typeof init.now !== 'function') {
      throw new WebhookVerificationError(
        'invalid_options',
        'init.now must be a function',
        'init.now',
      );
    }
    this.#now = init.now ?? Date.now;
    this.#current = checkSecret(init.current, 'init.current');
    registerSecret(init.current);
    this.#setPrevious(init.previous, init.previousValidUntil, 'init');
  }

  /** Applies a `rotateSecret()` answer: the current secret becomes the previous one. */
  rotate(rotation: { secret: string; previous_secret_valid_until: string | null }): void {
    const next = checkSecret(rotation?.secret, 'rotation.secret');
    const until = rotation.previous_secret_valid_until;
    const old = this.#current;
    // Check the window before changing anything, so a bad answer leaves the ring as it was.
    if (until !== null && until !== undefined) {
      instantMs(until, 'rotation.previous_secret_valid_until');
    }
    this.#current = next;
    registerSecret(next);
    this.#setPrevious(until === null ? undefined : old, until, 'rotation');
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

  #setPrevious(previous: string | undefined, until: Instant | null | undefined, where: string) {
    if (previous !== undefined) checkSecret(previous, `${where}.previous`);
    this.#previous = previous;
    this.#previousUntil =
      previous === undefined || until === null || until === undefined
        ? undefined
        : instantMs(until, `${where}.previousValidUntil`);
    registerSecret(previous);
  }
}
