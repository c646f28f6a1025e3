/** Fields held out of JSON and inspect output (issue 18). */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { fullyRedacted, hideFields } from '../../src/http/hidden-fields.js';
import { clearRegisteredSecrets, REDACTED, redact } from '../../src/http/redact.js';

afterEach(() => clearRegisteredSecrets());

describe('hideFields', () => {
  it('masks string fields in JSON and inspect output, registers them, and keeps the value usable', () => {
    const value = {
      id: 'pw-hidden-field-1',
      cdp_url: 'ws://h/?token=hidden-field-token-1',
      count: 2,
    };
    const same = hideFields(value, {
      cdp_url: () => 'ws://h/?token=[REDACTED]',
      id: fullyRedacted,
    });
    expect(same).toBe(value);
    expect(value.cdp_url).toBe('ws://h/?token=hidden-field-token-1');
    expect(JSON.parse(JSON.stringify(value))).toEqual({
      id: REDACTED,
      cdp_url: 'ws://h/?token=[REDACTED]',
      count: 2,
    });
    const shown = inspect(value);
    expect(shown).toContain("cdp_url: 'ws://h/?token=[REDACTED]'");
    expect(shown).toContain('count: 2');
    expect(shown).not.toContain('hidden-field-token-1');
    expect(shown).not.toContain('pw-hidden-field-1');
    expect(Object.keys(value)).toEqual(['id', 'cdp_url', 'count']);
    expect(redact('the pw-hidden-field-1 here')).toBe(`the ${REDACTED} here`);
    // Twice on one value (a copy re-wrapped) is fine: the hooks stay configurable.
    expect(() => hideFields(value, { id: fullyRedacted })).not.toThrow();
  });

  it('leaves a value without such string fields untouched', () => {
    const value = { token: 5 };
    hideFields(value, { token: fullyRedacted, other: fullyRedacted });
    expect(Object.getOwnPropertyNames(value)).toEqual(['token']);
    expect(JSON.stringify(value)).toBe('{"token":5}');
  });

  it('masks only the fields that hold a string when the value is printed', () => {
    const value: Record<string, unknown> = { a: 'secret-a-123456', b: 'x' };
    hideFields(value, { a: fullyRedacted, b: fullyRedacted });
    value.b = 7;
    expect(JSON.parse(JSON.stringify(value))).toEqual({ a: REDACTED, b: 7 });
  });
});

// A 24-byte secret like the service's.
const SECRET = `whsec_${Buffer.from('0123456789abcdef01234567').toString('base64')}`;

describe('webhook secrets print redacted', () => {
  it('hides the secret of a created webhook under inspect and JSON, but keeps it readable', async () => {
    const { hideFields, fullyRedacted } = await import('../../src/http/hidden-fields.js');
    const created = hideFields({ id: 'wh_1', secret: SECRET }, { secret: fullyRedacted });
    expect(created.secret).toBe(SECRET);
    expect(inspect(created)).not.toContain(SECRET);
    expect(JSON.stringify(created)).not.toContain(SECRET);
    expect(JSON.stringify(created)).toContain('wh_1');
    expect({ ...created }.secret).toBe(SECRET);
  });
});
