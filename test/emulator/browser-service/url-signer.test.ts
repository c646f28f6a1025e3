/**
 * The signed, expiring recording URLs (url-signer.ts): a signature is good for its resource and
 * expiry only, under this emulator's key only, and until the expiry on the emulator clock.
 */
import { describe, expect, it } from 'vitest';
import { UrlSigner } from '../../../src/emulator/browser-service/url-signer.js';

const EXPIRES = 1_000_000;

describe('UrlSigner', () => {
  it('accepts its own signature until the expiry, and calls it expired from then on', () => {
    const signer = new UrlSigner();
    const sig = signer.signature('rec_1', EXPIRES);
    expect(signer.verify('rec_1', String(EXPIRES), sig, EXPIRES - 1)).toBe('ok');
    expect(signer.verify('rec_1', String(EXPIRES), sig, EXPIRES)).toBe('expired');
  });

  it('refuses the signature for another resource, a moved expiry, or from another emulator', () => {
    const signer = new UrlSigner();
    const sig = signer.signature('rec_1', EXPIRES);
    expect(signer.verify('rec_2', String(EXPIRES), sig, 0)).toBe('invalid');
    expect(signer.verify('rec_1', String(EXPIRES + 60_000), sig, 0)).toBe('invalid');
    expect(new UrlSigner().verify('rec_1', String(EXPIRES), sig, 0)).toBe('invalid');
  });

  it('refuses what is missing or malformed without throwing', () => {
    const signer = new UrlSigner();
    const sig = signer.signature('rec_1', EXPIRES);
    expect(signer.verify('rec_1', null, sig, 0)).toBe('invalid');
    expect(signer.verify('rec_1', String(EXPIRES), null, 0)).toBe('invalid');
    expect(signer.verify('rec_1', '1e6', sig, 0)).toBe('invalid');
    expect(signer.verify('rec_1', String(EXPIRES), sig.slice(0, 10), 0)).toBe('invalid');
    expect(signer.verify('rec_1', String(EXPIRES), 'zz'.repeat(32), 0)).toBe('invalid');
    expect(signer.verify('rec_1', String(EXPIRES), sig.toUpperCase(), 0)).toBe('ok');
  });
});
