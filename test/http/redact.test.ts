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

  it('removes a secret field whole, escaped quotes inside it included', () => {
    expect(redact('{"password":"a\\"b\\\\c","next":1}')).toBe('{"password":"[REDACTED]","next":1}');
    expect(redact('{"token":"never closed')).toBe('{"token":"[REDACTED]');
  });

  it('is idempotent', () => {
    const once = redact('ws://h/?token=abc Bearer xyz');
    expect(redact(once)).toBe(once);
  });

  it('leaves ordinary text alone', () => {
    expect(redact('abc is not a secret; tokens=3')).toBe('abc is not a secret; tokens=3');
  });

  it('removes a registered secret of under six characters only where it stands whole', () => {
    registerSecret('pw1');
    registerSecret('k3y-42');
    expect(redact('password pw1 rejected; "proxy_password":"pw1", x=pw1&y')).toBe(
      `password ${REDACTED} rejected; "proxy_password":"${REDACTED}", x=${REDACTED}&y`,
    );
    // Inside a longer word or value it is ordinary text.
    expect(redact('upw1 pw12 pw1-a a.pw1 k3y-42')).toBe(`upw1 pw12 pw1-a a.pw1 ${REDACTED}`);
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

describe('redact on hostile input', () => {
  it.each([
    ['dotted words', 'a.'],
    ['scheme-like words', 'ab+'],
    ['unclosed secret fields', '"token":"x'],
    ['bearer words', 'Bearer '],
    ['query parameters', '?token=&'],
  ])('stays linear in its input: 1 MB of %s in well under a second', (_name, unit) => {
    registerSecret('planted-secret-0001');
    const text = `planted-secret-0001 ${unit.repeat(Math.ceil(1_000_000 / unit.length))}`;
    const started = performance.now();
    const out = redact(text);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(out.startsWith(`${REDACTED} `)).toBe(true);
    expect(out).not.toContain('planted-secret-0001');
  });
});

describe('secrets with quotes and backslashes', () => {
  const secrets = [
    'quux"zorp\\flim-1',
    "quux'zorp-flim",
    'quux"zorp\'flim`blat',
    'quux\\zorp\\flim',
  ];
  /** The secret's letters, which show through any escaping of it. */
  const fragments = (secret: string) => secret.split(/[^a-z]+/).filter((f) => f.length >= 4);

  it.each(secrets)('removes %s raw, JSON-escaped and util.inspect-escaped', (secret) => {
    registerSecret(secret);
    for (const form of [
      secret,
      JSON.stringify(secret),
      JSON.stringify(JSON.stringify(secret)),
      inspect(secret),
      inspect({ s: secret }),
      inspect([[secret]]),
    ]) {
      const out = redact(form);
      expect(out).toContain(REDACTED);
      for (const fragment of fragments(secret)) expect(out).not.toContain(fragment);
    }
  });

  it.each(secrets)(
    'never shows %s through util.inspect or JSON.stringify of an error',
    (secret) => {
      registerSecret(secret);
      const error = new BadRequestError({
        status: 400,
        method: 'POST',
        path: '/api/v2/browser/sessions',
        message: `bad ${secret}`,
        body: { error: `bad ${secret}`, echo: [secret], nested: { deep: { value: secret } } },
      });
      for (const text of [
        error.message,
        inspect(error, { depth: 10 }),
        JSON.stringify(error),
        JSON.stringify({ wrapped: error }),
        String(error),
      ]) {
        for (const fragment of fragments(secret)) expect(text).not.toContain(fragment);
      }
    },
  );
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
