import { createHmac } from 'node:crypto';
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  isWebhookVerificationError,
  SecretRing,
  standardWebhooks,
  verifyWebhook,
  WebhookVerificationError,
} from '../../src/account-api/index.js';
import { signatureHeader } from '../../src/emulator/account-service/signing.js';

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

// A 24-byte secret like the service's; the deliveries below are "sent" at NOW.
const SECRET = `whsec_${Buffer.from('0123456789abcdef01234567').toString('base64')}`;
const NOW_S = Math.floor(NOW / 1000);

/** Standard Webhooks headers for `body`, signed with the raw HMAC key `key`. */
function signedWithKey(key: Buffer, ts = NOW_S, id = 'msg_1') {
  const mac = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': `v1,${mac}` };
}
const signedWith = (secret: string, ts = NOW_S) =>
  signedWithKey(
    secret.startsWith('whsec_')
      ? Buffer.from(secret.slice(6), 'base64')
      : Buffer.from(secret, 'utf8'),
    ts,
  );

function failure(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('expected verification to fail, but the delivery was accepted');
}

describe('verifyWebhook fails closed on every malformed option', () => {
  // Each row: options that are wrong, and the delivery an attacker would send against them.
  const forged = signedWith('w');
  const rows: Array<{
    name: string;
    options: unknown;
    headers?: Record<string, string>;
    field: string;
    /** The rule the message must state (beside the field). */
    rule?: RegExp;
  }> = [
    {
      name: 'an empty secret list',
      options: { secrets: [], now: () => NOW },
      field: 'options.secrets',
    },
    {
      name: 'an empty string secret (an unset env var)',
      options: { secrets: [''], now: () => NOW },
      headers: signedWith(''),
      field: 'options.secrets[0]',
    },
    {
      name: 'an empty string passed as the secrets',
      options: { secrets: '', now: () => NOW },
      headers: signedWith(''),
      field: 'options.secrets',
    },
    {
      name: 'a whitespace-only secret',
      options: { secrets: ['   '], now: () => NOW },
      headers: signedWith('   '),
      field: 'options.secrets[0]',
    },
    {
      name: 'a one-character secret',
      options: { secrets: ['w'], now: () => NOW },
      headers: forged,
      field: 'options.secrets[0]',
    },
    {
      name: 'a whsec_ secret with too little key material',
      options: { secrets: [`whsec_${Buffer.from('short').toString('base64')}`], now: () => NOW },
      headers: signedWithKey(Buffer.from('short')),
      field: 'options.secrets[0]',
    },
    {
      name: 'a whsec_ secret that is not base64',
      options: { secrets: ['whsec_not base64 at all!!'], now: () => NOW },
      field: 'options.secrets[0]',
    },
    {
      name: 'a secret that is not a string',
      options: { secrets: [42], now: () => NOW },
      field: 'options.secrets[0]',
    },
    {
      name: 'secrets that are neither a string nor a list',
      options: { secrets: { current: SECRET }, now: () => NOW },
      field: 'options.secrets',
    },
    {
      name: 'a tolerance that is a string',
      options: { secrets: [SECRET], tolerance: 'abc', now: () => NOW },
      headers: signedWith(SECRET, NOW_S - 3 * 3600),
      field: 'options.tolerance',
      rule: /must be a finite number of seconds >= 0, got abc/,
    },
    {
      name: 'a NaN tolerance (Number(undefined))',
      options: { secrets: [SECRET], tolerance: Number.NaN, now: () => NOW },
      headers: signedWith(SECRET, NOW_S - 3 * 3600),
      field: 'options.tolerance',
      rule: /must be a finite number of seconds >= 0, got NaN/,
    },
    {
      name: 'an infinite tolerance',
      options: { secrets: [SECRET], tolerance: Number.POSITIVE_INFINITY, now: () => NOW },
      headers: signedWith(SECRET, NOW_S - 3 * 3600),
      field: 'options.tolerance',
      rule: /must be a finite number of seconds >= 0, got Infinity/,
    },
    {
      name: 'a negative tolerance',
      options: { secrets: [SECRET], tolerance: -1, now: () => NOW },
      field: 'options.tolerance',
      rule: /must be a finite number of seconds >= 0, got -1/,
    },
    {
      name: 'a clock that is not a function',
      options: { secrets: [SECRET], now: NOW },
      field: 'options.now',
      rule: /must be a function/,
    },
    {
      name: 'a clock that returns NaN',
      options: { secrets: [SECRET], now: () => Number.NaN },
      headers: signedWith(SECRET, NOW_S - 3 * 3600),
      field: 'options.now',
      rule: /must return a finite number of milliseconds/,
    },
    {
      name: 'both secrets and a ring',
      options: { secrets: [SECRET], ring: new SecretRing({ current: SECRET }), now: () => NOW },
      field: 'options',
      rule: /takes `secrets` or `ring`, not both/,
    },
    {
      name: 'a ring that is not a SecretRing',
      options: { ring: [SECRET], now: () => NOW },
      field: 'options.ring',
      rule: /must be a SecretRing/,
    },
    {
      name: 'a scheme without sign()',
      options: { secrets: [SECRET], scheme: { name: 'x', read: () => undefined }, now: () => NOW },
      field: 'options.scheme',
      rule: /must have read\(\) and sign\(\)/,
    },
    {
      name: 'a ring that is null',
      options: { ring: null, now: () => NOW },
      field: 'options.ring',
      rule: /must be a SecretRing/,
    },
    {
      name: 'a scheme that is null',
      options: { secrets: [SECRET], scheme: null, now: () => NOW },
      field: 'options.scheme',
      rule: /must have read\(\) and sign\(\)/,
    },
    {
      name: 'a scheme that is a string',
      options: { secrets: [SECRET], scheme: 'standard-webhooks', now: () => NOW },
      field: 'options.scheme',
      rule: /must have read\(\) and sign\(\)/,
    },
    {
      name: 'a scheme without read()',
      options: { secrets: [SECRET], scheme: { name: 'x', sign: () => 'v1,x' }, now: () => NOW },
      field: 'options.scheme',
      rule: /must have read\(\) and sign\(\)/,
    },
    {
      name: 'a sparse secret list with a hole first',
      // biome-ignore lint/suspicious/noSparseArray: the hole is the point
      options: { secrets: [, SECRET], now: () => NOW },
      field: 'options.secrets[0]',
      rule: /must be a string, got undefined/,
    },
    {
      name: 'a sparse secret list with a hole after a secret that matches',
      // biome-ignore lint/suspicious/noSparseArray: the hole is the point
      options: { secrets: [SECRET, , SECRET], now: () => NOW },
      field: 'options.secrets[1]',
      rule: /must be a string, got undefined/,
    },
    {
      name: 'a sparse secret list of holes only',
      options: { secrets: new Array(2), now: () => NOW },
      field: 'options.secrets[0]',
      rule: /must be a string, got undefined/,
    },
    {
      name: 'a secret list holding a non-string',
      options: { secrets: [SECRET, 42], now: () => NOW },
      field: 'options.secrets[1]',
      rule: /must be a string, got number/,
    },
    {
      name: 'options that are not an object',
      options: SECRET,
      field: 'options',
      rule: /must be an object with `secrets` or `ring`/,
    },
    {
      name: 'options that are null',
      options: null,
      field: 'options',
      rule: /must be an object with `secrets` or `ring`/,
    },
  ];

  it.each(rows)('rejects $name', ({ options, headers, field, rule }) => {
    const error = failure(() =>
      verifyWebhook(body, headers ?? signedWith(SECRET), options as never),
    );
    expect(error.reason).toBe('invalid_options');
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
    if (rule) expect(error.message).toMatch(rule);
  });

  it('rejects options with neither secrets nor a ring as no_secrets', () => {
    const error = failure(() => verifyWebhook(body, signedWith(SECRET), { now: () => NOW }));
    expect(error.reason).toBe('no_secrets');
    expect(error.message).toMatch(/pass `secrets` or `ring`/);
  });

  it('treats a single string as one secret, never as a list of its characters', () => {
    // The string's first character, as a one-byte key: this verified before the fix.
    const attack = signedWith(SECRET[0] as string);
    expect(
      failure(() => verifyWebhook(body, attack, { secrets: SECRET, now: () => NOW })).reason,
    ).toBe('no_matching_signature');
    expect(
      verifyWebhook(body, signedWith(SECRET), { secrets: SECRET, now: () => NOW }).matched,
    ).toBe('current');
  });

  it('rejects a three-hour-old delivery with the default tolerance when tolerance is undefined', () => {
    const old = signedWith(SECRET, NOW_S - 3 * 3600);
    const options = { secrets: [SECRET], tolerance: undefined, now: () => NOW };
    expect(failure(() => verifyWebhook(body, old, options)).reason).toBe(
      'timestamp_out_of_tolerance',
    );
  });

  it('accepts tolerance 0 for a delivery stamped this second, and nothing older', () => {
    const options = { secrets: [SECRET], tolerance: 0, now: () => NOW };
    expect(verifyWebhook(body, signedWith(SECRET), options).matched).toBe('current');
    expect(failure(() => verifyWebhook(body, signedWith(SECRET, NOW_S - 1), options)).reason).toBe(
      'timestamp_out_of_tolerance',
    );
  });

  it.each([
    ['null', null, 'null'],
    ['a number', 42, 'number'],
    ['a parsed object', JSON.parse(body), 'object'],
    ['undefined', undefined, 'undefined'],
  ])('rejects a body that is %s with invalid_body, not a TypeError', (_name, raw, got) => {
    const error = failure(() =>
      verifyWebhook(raw as never, signedWith(SECRET), { secrets: [SECRET], now: () => NOW }),
    );
    expect(error.reason).toBe('invalid_body');
    expect(error.message).toContain(
      `the body must be the raw request body as a string, Buffer or Uint8Array (before JSON parsing), got ${got}`,
    );
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'webhook-id: x'],
  ])('rejects headers that are %s with missing_headers, not a TypeError', (_name, headers) => {
    const error = failure(() =>
      verifyWebhook(body, headers as never, { secrets: [SECRET], now: () => NOW }),
    );
    expect(error.reason).toBe('missing_headers');
    expect(error.message).toBe('verifyWebhook: no headers object was given');
  });

  it('checks the options before it looks at the delivery', () => {
    // No headers at all, and a bad tolerance: the set-up error is the one reported.
    const error = failure(() =>
      verifyWebhook(body, {}, { secrets: [SECRET], tolerance: 'abc' as never }),
    );
    expect(error.reason).toBe('invalid_options');
  });
});

describe('verifyWebhook reads the signature headers strictly', () => {
  const options = { secrets: [SECRET], now: () => NOW };
  const malformed = (headers: Record<string, unknown>) => {
    const error = failure(() => verifyWebhook(body, headers as never, options));
    expect(error.reason).toBe('missing_headers');
    expect(error.message).toBe(
      'verifyWebhook: missing or malformed standard-webhooks signature headers',
    );
  };

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
    'rejects a delivery without %s alone',
    (name) => {
      const headers: Record<string, unknown> = { ...signedWith(SECRET) };
      delete headers[name];
      malformed(headers);
    },
  );

  it.each(['abc', `${NOW_S}x`, `x${NOW_S}`, `${NOW_S}.5`])(
    'rejects a timestamp that is not whole seconds: %s',
    (timestamp) => malformed({ ...signedWith(SECRET), 'webhook-timestamp': timestamp }),
  );

  it('treats a header value that is not a string as missing', () => {
    malformed({ ...signedWith(SECRET), 'webhook-id': 42 });
  });

  it('reads a header sent twice (a Node headers array) as its values joined', () => {
    const signed = signedWith(SECRET);
    const headers = {
      ...signed,
      'webhook-signature': ['v1,c2hvcnQ=', signed['webhook-signature']],
    };
    expect(verifyWebhook(body, headers as never, options).matched).toBe('current');
  });

  it('skips a signature of another length instead of throwing', () => {
    const signed = signedWith(SECRET);
    const shortOnly = { ...signed, 'webhook-signature': 'v1,c2hvcnQ=' };
    expect(failure(() => verifyWebhook(body, shortOnly, options)).reason).toBe(
      'no_matching_signature',
    );
    const both = { ...signed, 'webhook-signature': `v1,c2hvcnQ=  ${signed['webhook-signature']}` };
    expect(verifyWebhook(body, both, options).matched).toBe('current');
  });

  it('says how far the timestamp is from now', () => {
    const error = failure(() => verifyWebhook(body, signedWith(SECRET, NOW_S - 3600), options));
    expect(error.message).toBe(
      `verifyWebhook: timestamp ${NOW_S - 3600} is more than 300 s away from now (${NOW_S})`,
    );
  });

  it('verifies a body that is not JSON, with an undefined payload', () => {
    const text = 'not json';
    const key = Buffer.from(SECRET.slice(6), 'base64');
    const mac = createHmac('sha256', key).update(`msg_1.${NOW_S}.${text}`).digest('base64');
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(NOW_S),
      'webhook-signature': `v1,${mac}`,
    };
    const verified = verifyWebhook(new TextEncoder().encode(text), headers, options);
    expect(verified.payload).toBeUndefined();
    expect(verified.id).toBe('msg_1');
  });
});

describe('SecretRing fails closed', () => {
  it.each([
    ['an empty current secret', { current: '' }, 'init.current'],
    ['an undefined current secret', { current: undefined }, 'init.current'],
    ['a short current secret', { current: 'abc' }, 'init.current'],
    ['an empty previous secret', { current: SECRET, previous: '' }, 'init.previous'],
    [
      'a previous secret with an unparseable end',
      { current: SECRET, previous: SECRET, previousValidUntil: 'soon' },
      'init.previousValidUntil',
    ],
  ])('rejects %s', (_name, init, field) => {
    const error = failure(() => new SecretRing(init as never));
    expect(error.reason).toBe('invalid_options');
    expect(error.field).toBe(field);
  });

  it('rejects a rotation to an empty secret and keeps the ring as it was', () => {
    const ring = new SecretRing({ current: SECRET });
    const error = failure(() => ring.rotate({ secret: '', previous_secret_valid_until: null }));
    expect(error.field).toBe('rotation.secret');
    expect(ring.secrets()).toEqual([SECRET]);
  });

  it('rejects a rotation whose window end is not a date, and keeps the ring as it was', () => {
    const ring = new SecretRing({ current: SECRET });
    const next = `whsec_${Buffer.from('fedcba9876543210fedcba98').toString('base64')}`;
    const error = failure(() => ring.rotate({ secret: next, previous_secret_valid_until: 'x' }));
    expect(error.field).toBe('rotation.previous_secret_valid_until');
    expect(ring.secrets()).toEqual([SECRET]);
  });
});

describe('interop with the reference Standard Webhooks implementation', () => {
  const reference = new ReferenceWebhook(SECRET);

  it('verifies a delivery the reference library signed', () => {
    const signature = reference.sign('msg_ref', new Date(NOW), body);
    const headers = {
      'webhook-id': 'msg_ref',
      'webhook-timestamp': String(NOW_S),
      'webhook-signature': signature,
    };
    expect(verifyWebhook(body, headers, { secrets: [SECRET], now: () => NOW }).id).toBe('msg_ref');
  });

  it('signs what the reference library verifies', () => {
    const ts = Math.floor(Date.now() / 1000);
    const headers = signedWith(SECRET, ts);
    expect(reference.verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('rejects what the reference library rejects: a signature from another secret', () => {
    const other = `whsec_${Buffer.from('another-24-byte-secret!!').toString('base64')}`;
    const signature = new ReferenceWebhook(other).sign('msg_ref', new Date(NOW), body);
    const headers = {
      'webhook-id': 'msg_ref',
      'webhook-timestamp': String(NOW_S),
      'webhook-signature': signature,
    };
    expect(() => reference.verify(body, headers)).toThrow();
    expect(
      failure(() => verifyWebhook(body, headers, { secrets: [SECRET], now: () => NOW })).reason,
    ).toBe('no_matching_signature');
  });
});
