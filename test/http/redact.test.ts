import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { BadRequestError, ConnectionError } from '../../src/http/errors.js';
import {
  clearRegisteredSecrets,
  REDACTED,
  redact,
  redactValue,
  registerSecret,
} from '../../src/http/redact.js';

afterEach(() => clearRegisteredSecrets());

describe('redact', () => {
  it('removes registered secrets wherever they appear, also URL-encoded', () => {
    registerSecret('pa$$word/with+chars');
    const out = redact('a pa$$word/with+chars b pa%24%24word%2Fwith%2Bchars c');
    expect(out).toBe('a [REDACTED] b [REDACTED] c');
  });

  it('removes token-like query parameters even when unregistered', () => {
    expect(redact('ws://127.0.0.1:9/cdp/abc?token=s3cr3t&x=1')).toBe(
      'ws://127.0.0.1:9/cdp/abc?token=[REDACTED]&x=1',
    );
    expect(redact('https://h/v.webm?expires=1&sig=deadbeef')).toBe(
      'https://h/v.webm?expires=1&sig=[REDACTED]',
    );
    expect(redact('"https://h/?access_token=abc"')).toBe('"https://h/?access_token=[REDACTED]"');
  });

  it('removes Authorization values and URL user-info', () => {
    expect(redact('Authorization: Bearer abc.def-ghi')).toBe('Authorization: Bearer [REDACTED]');
    expect(redact('{"authorization":"x-api-key k_123"}')).toBe('{"authorization":"[REDACTED]"}');
    expect(redact('wss://user:pw@host/x')).toBe('wss://[REDACTED]@host/x');
  });

  it('is idempotent', () => {
    const once = redact('ws://h/?token=abc Bearer xyz');
    expect(redact(once)).toBe(once);
  });

  it('leaves ordinary text and short registered values alone', () => {
    registerSecret('abc');
    expect(redact('abc is not a secret; tokens=3')).toBe('abc is not a secret; tokens=3');
  });

  it('registers a value from six characters on, the shortest a secret may be', () => {
    registerSecret('abcde');
    registerSecret('k3y-42');
    expect(redact('abcde k3y-42')).toBe(`abcde ${REDACTED}`);
  });

  it('removes a secret that contains another registered earlier whole, leaving no tail of it', () => {
    registerSecret('proxy1');
    registerSecret('proxy1-tail-part');
    expect(redact('pw=proxy1-tail-part')).toBe(`pw=${REDACTED}`);
  });

  it('forgets every registered secret when cleared', () => {
    registerSecret('forgotten-secret');
    clearRegisteredSecrets();
    expect(redact('forgotten-secret')).toBe('forgotten-secret');
  });
});

describe('redactValue', () => {
  it('redacts a string as text and an object through its JSON', () => {
    registerSecret('value-secret-1');
    expect(redactValue('is value-secret-1')).toBe(`is ${REDACTED}`);
    expect(redactValue({ note: 'value-secret-1', n: 2 })).toEqual({ note: REDACTED, n: 2 });
  });

  it('returns values that hold no text as they are, undefined included', () => {
    expect(redactValue(undefined)).toBeUndefined();
    expect(redactValue(null)).toBeNull();
    expect(redactValue(42)).toBe(42);
    const fn = () => 1;
    expect(redactValue(fn)).toBe(fn);
  });

  it('prints an object it cannot serialise (a cycle) as redacted, never raw', () => {
    const cyclic: Record<string, unknown> = { secret: 'x' };
    cyclic.self = cyclic;
    expect(redactValue(cyclic)).toBe(REDACTED);
  });
});

describe('errors stay redacted', () => {
  it('in message, util.inspect, JSON.stringify and String()', () => {
    const secret = 'planted-secret-4242';
    registerSecret(secret);
    const error = new BadRequestError({
      status: 400,
      method: 'POST',
      path: '/api/v2/browser/sessions',
      message: `proxy_password ${secret} is wrong`,
      body: { error: `proxy_password ${secret} is wrong`, echo: { proxy_password: secret } },
    });
    for (const text of [
      error.message,
      inspect(error, { depth: 10 }),
      JSON.stringify(error),
      String(error),
      error.stack ?? '',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(inspect(error)).toContain('[REDACTED]');
  });

  it('including the cause of a connection error', () => {
    const cause = new Error('connect to ws://h/?token=leaky-token-value failed');
    const error = new ConnectionError('failed', { cause, requestSent: true });
    expect(inspect(error, { depth: 5 })).not.toContain('leaky-token-value');
  });
});
