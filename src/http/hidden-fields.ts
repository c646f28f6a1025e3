/**
 * Response objects that hold a credential (a session's `cdp_url`, a webhook's signing `secret`)
 * keep it as a plain, enumerable property, so `value.secret` and spreading work, and get two
 * non-enumerable hooks so that `util.inspect`, `console.log` and `JSON.stringify` print it
 * redacted. Every hidden value is also registered with `redact()`, so a copy that ends up in
 * an error message or a log line is removed there too.
 */
import type { inspect } from 'node:util';
import { INSPECT_CUSTOM, nodeUtil } from './node-builtins.js';
import { REDACTED, registerSecret } from './redact.js';

/** How each hidden field prints: a function of its real value. */
export type FieldMasks = Readonly<Record<string, (value: string) => unknown>>;

/** Prints the field as `[REDACTED]`. */
export const fullyRedacted = (): string => REDACTED;

function printable(value: object, masks: FieldMasks): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...value };
  for (const [field, mask] of Object.entries(masks)) {
    const real = copy[field];
    if (typeof real === 'string') copy[field] = mask(real);
  }
  return copy;
}

/**
 * Adds the redacting hooks to `value` (in place) when it holds a string in one of the masked
 * fields; returns it.
 */
export function hideFields<T extends object>(value: T, masks: FieldMasks): T {
  const held = Object.keys(masks).filter(
    (field) => typeof (value as Record<string, unknown>)[field] === 'string',
  );
  if (held.length === 0) return value;
  for (const field of held) registerSecret((value as Record<string, string>)[field]);
  Object.defineProperties(value, {
    toJSON: {
      value(this: object) {
        return printable(this, masks);
      },
      enumerable: false,
      configurable: true,
      writable: true,
    },
    [INSPECT_CUSTOM]: {
      value(
        this: object,
        _depth: number,
        options: object,
        inspectFn: typeof inspect = nodeUtil().inspect,
      ) {
        return inspectFn(printable(this, masks), options);
      },
      enumerable: false,
      configurable: true,
      writable: true,
    },
  });
  return value;
}
