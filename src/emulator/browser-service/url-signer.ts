/**
 * HMAC-signed, expiring URLs for recording files, like a CDN's signed URLs: anyone holding the
 * URL may download until it expires (emulator clock), no Authorization header needed.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export class UrlSigner {
  readonly #key = randomBytes(32);

  signature(resource: string, expiresAtMs: number): string {
    return createHmac('sha256', this.#key).update(`${resource}\n${expiresAtMs}`).digest('hex');
  }

  /** `expired` and `invalid` are both a 403 for the caller; the message says which. */
  verify(
    resource: string,
    expires: string | null,
    signature: string | null,
    nowMs: number,
  ): 'ok' | 'expired' | 'invalid' {
    if (!expires || !signature || !/^\d+$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.signature(resource, Number(expires)), 'hex');
    const given = Buffer.from(signature, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) <= nowMs ? 'expired' : 'ok';
  }
}
