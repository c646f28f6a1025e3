import { describe, expect, it } from 'vitest';
import {
  isWebhookVerificationError,
  SecretRing,
  standardWebhooks,
  verifyWebhook,
  WebhookVerificationError,
} from '../../src/account-api/index.js';
import { signatureHeader } from '../../src/emulator/account-service/index.js';

const OLD = 'whsec_b2xkLW9sZC1vbGQtb2xkLW9sZC1vbGQ=';
const NEW = 'whsec_bmV3LW5ldy1uZXctbmV3LW5ldy1uZXc=';
const NOW = Date.UTC(2030, 0, 1, 12);
const body = JSON.stringify({ type: 'credits.low', data: { balance: 1 } });

function headers(secrets: string[], ts = Math.floor(NOW / 1000), id = 'msg_1') {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': signatureHeader(secrets, id, ts, body),
  };
}

describe('verifyWebhook (Standard Webhooks)', () => {
  it('accepts a delivery signed by the emulator and says the current secret matched', () => {
    const out = verifyWebhook(body, headers([NEW]), { secrets: [NEW], now: () => NOW });
    expect(out).toMatchObject({ id: 'msg_1', matched: 'current', secretIndex: 0 });
    expect(out.payload).toEqual(JSON.parse(body));
  });

  it('accepts the previous secret during a rotation window and says so', () => {
    const out = verifyWebhook(body, headers([OLD]), { secrets: [NEW, OLD], now: () => NOW });
    expect(out.matched).toBe('previous');
  });

  it('rejects a tampered body', () => {
    expect(() =>
      verifyWebhook(`${body} `, headers([NEW]), { secrets: [NEW], now: () => NOW }),
    ).toThrow(WebhookVerificationError);
  });

  it('rejects timestamps outside the tolerance in both directions', () => {
    for (const skew of [-301, 301]) {
      const error = (() => {
        try {
          verifyWebhook(body, headers([NEW], Math.floor(NOW / 1000) + skew), {
            secrets: [NEW],
            now: () => NOW,
          });
        } catch (e) {
          return e as WebhookVerificationError;
        }
      })();
      expect(error?.reason).toBe('timestamp_out_of_tolerance');
      expect(isWebhookVerificationError(error)).toBe(true);
    }
    expect(isWebhookVerificationError(new Error('other'))).toBe(false);
  });

  it('reports missing headers', () => {
    expect(() => verifyWebhook(body, {}, { secrets: [NEW] })).toThrow(/missing/);
  });

  it('reads headers from a Headers object too', () => {
    const h = new Headers(headers([NEW]));
    expect(verifyWebhook(body, h, { secrets: [NEW], now: () => NOW }).matched).toBe('current');
  });

  it('takes a pluggable scheme', () => {
    const scheme = {
      ...standardWebhooks,
      name: 'x-sig',
      read: (get: (n: string) => string | undefined) => {
        const v = get('x-sig');
        return v ? { id: 'i', timestamp: Math.floor(NOW / 1000), signatures: [v] } : undefined;
      },
    };
    const sig = scheme.sign(NEW, 'i', Math.floor(NOW / 1000), Buffer.from(body));
    expect(
      verifyWebhook(body, { 'x-sig': sig }, { secrets: [NEW], scheme, now: () => NOW }).id,
    ).toBe('i');
  });
});

describe('SecretRing', () => {
  it('keeps the previous secret until previous_secret_valid_until, then drops it', () => {
    let now = NOW;
    const ring = new SecretRing({ current: OLD, now: () => now });
    ring.rotate({ secret: NEW, previous_secret_valid_until: new Date(NOW + 60_000).toISOString() });
    expect(ring.secrets()).toEqual([NEW, OLD]);
    expect(verifyWebhook(body, headers([OLD]), { ring, now: () => now }).matched).toBe('previous');
    now = NOW + 60_001;
    expect(ring.secrets()).toEqual([NEW]);
    expect(() => verifyWebhook(body, headers([OLD]), { ring, now: () => NOW })).toThrow(
      /no signature matches/,
    );
  });

  it('drops the old secret at once when the rotation says null', () => {
    const ring = new SecretRing({ current: OLD });
    ring.rotate({ secret: NEW, previous_secret_valid_until: null });
    expect(ring.secrets()).toEqual([NEW]);
  });
});
