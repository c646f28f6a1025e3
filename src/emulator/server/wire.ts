/**
 * The emulator's side of the one contract: requests are parsed, and answers checked, with the
 * client's own zod wire schemas (`src/browser-api/schemas`, `src/account-api/schemas`), so a
 * change to the contract is one edit and a drift between the two ends is a type or test error.
 *
 * - `parseBody(schema, body)`: the request as the schema reads it, or a 400 naming each field
 *   and rule in the client's own words (`describeIssue`; a secret is never quoted). A route
 *   that needs the spec's server-side rules passes the client's schema extended.
 * - `answer(schema, value)`: `value` is typed as the schema's input, so a renamed or retyped
 *   required field fails the type check where the answer is built; at run time it must parse,
 *   and carry no key the schema does not name (a field the client cannot see is a drift too).
 *   A broken answer is the emulator's bug: a 500 naming the field, never sent as if valid.
 */
import type { z } from 'zod';
import { zod } from '../../http/lazy-schema.js';
import { describeIssue, type RequestIssue } from '../../http/request-validation.js';
import { addFieldError, type FieldErrors, HttpError } from './http-error.js';
import type { Reply } from './router.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A JSON body as an object: an absent body is `{}`, and a top-level `null` counts as omitted,
 * like an SDK that sends `None` for an unset option. Anything but an object is a 400.
 */
export function objectBody(body: unknown): Record<string, unknown> {
  const input = body ?? {};
  if (!isRecord(input)) {
    throw new HttpError(400, 'The request body must be a JSON object', {
      fields: { non_field_errors: ['Invalid data. Expected a JSON object.'] },
    });
  }
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null));
}

/** Parses a JSON body (read as `objectBody` does) with `schema`, or a 400 naming each field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(objectBody(body), { reportInput: true });
  if (result.success) return result.data;
  const fields: FieldErrors = {};
  const messages = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.') || 'non_field_errors';
    const message = describeIssue(issue as RequestIssue);
    addFieldError(fields, path, message);
    return `${path} ${message}`;
  });
  throw new HttpError(400, messages.join('; '), { fields });
}

/**
 * A query string read with `schema` (its fields take the strings as sent: `digits()` reads a
 * number): a field it refuses is a 400 in the route's words for it (`refusals`), the first one.
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  query: URLSearchParams,
  refusals: Readonly<Record<string, string>>,
): z.output<S> {
  const input: Record<string, string> = {};
  for (const [key, value] of query) input[key] ??= value;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const field = String(result.error.issues[0]?.path[0]);
  throw new HttpError(400, refusals[field] ?? `${field} is not valid`);
}

/** A query field of digits only, read as the number it spells. */
export const digits = () => zod().string().regex(/^\d+$/).transform(Number);

/** `value`, checked against the client's schema of this answer (see the file comment). */
export function answer<S extends z.ZodType>(schema: S, value: z.input<S>): z.input<S> {
  const result = schema.safeParse(value);
  const problems = result.success
    ? unknownKeys(schema, value).map((path) => `${path}: not in the client's schema`)
    : result.error.issues.map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`);
  if (problems.length > 0) {
    throw new HttpError(
      500,
      `The emulator's answer breaks the wire contract: ${problems.join('; ')}`,
    );
  }
  return value;
}

/** The browser service's envelope: `{ data: value }`, `value` checked with `answer()`. */
export function data<S extends z.ZodType>(schema: S, value: z.input<S>): Reply {
  return { body: { data: answer(schema, value) } };
}

/** The schema an optional, nullable, defaulted, piped or lazy schema wraps. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = current.def as unknown as Record<string, unknown> & { type: string };
    if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch'].includes(def.type)) {
      current = def.innerType as z.ZodType;
    } else if (def.type === 'pipe') {
      current = def.in as z.ZodType;
    } else if (def.type === 'lazy') {
      current = (def.getter as () => z.ZodType)();
    } else {
      return current;
    }
  }
}

/**
 * Paths of `value` whose key no object of `schema` names: the strict reading of the client's
 * loose schemas (they let unknown keys pass so a newer service does not break an older client;
 * the emulator is the other end and must send only what the contract says).
 */
export function unknownKeys(schema: z.ZodType, value: unknown, at = ''): string[] {
  const inner = unwrap(schema);
  const def = inner.def as unknown as { type: string; shape?: Record<string, z.ZodType> };
  // An object schema with no keys (`looseObject({})`) says its fields are not pinned down.
  if (def.type === 'object' && def.shape && Object.keys(def.shape).length > 0 && isRecord(value)) {
    const shape = def.shape;
    return Object.entries(value).flatMap(([key, child]) => {
      const path = at ? `${at}.${key}` : key;
      const field = shape[key];
      return field ? unknownKeys(field, child, path) : [path];
    });
  }
  if (def.type === 'array' && Array.isArray(value)) {
    const element = (inner.def as unknown as { element: z.ZodType }).element;
    return value.flatMap((item, i) => unknownKeys(element, item, `${at}[${i}]`));
  }
  return [];
}
