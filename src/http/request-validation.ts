/**
 * The one step from a zod schema to a RequestValidationError, for both API clients: a call
 * whose input breaks a rule the client knows is never sent (nor charged). Messages name the
 * field and the rule, in the service's own vocabulary, so they can be looked up in the spec.
 */
import type { z } from 'zod';
import { RequestValidationError } from './errors.js';

/** A zod issue with the offending input attached (`reportInput`). */
export type RequestIssue = z.core.$ZodIssue & { input?: unknown };

export interface ParseOptions {
  /** Words one issue. Default: the schema's own message. */
  describe?: ((issue: RequestIssue) => string) | undefined;
  /** The argument's name, used for an issue about the whole input (`submit(null)`). Default `params`. */
  argument?: string | undefined;
}

/**
 * Parses `input` with `schema`, or throws a RequestValidationError naming `what` and each
 * field. `wording` is the options, or just their `describe`.
 */
export function parseRequest<S extends z.ZodType>(
  what: string,
  schema: S,
  input: unknown,
  wording: ParseOptions | ((issue: RequestIssue) => string) = {},
): z.output<S> {
  const options = typeof wording === 'function' ? { describe: wording } : wording;
  const argument = options.argument ?? 'params';
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    rejectField(what, argument, `must be an object (got ${shown(input)})`);
  }
  const describe = options.describe ?? ((issue: RequestIssue) => issue.message);
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw new RequestValidationError(
    what,
    result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.') || argument,
      message: describe(issue as RequestIssue),
    })),
  );
}

/** Throws a RequestValidationError for one field (checks zod cannot express cleanly). */
export function rejectField(what: string, path: string, message: string): never {
  throw new RequestValidationError(what, [{ path, message }]);
}

/** `"fast"`, `3`, `an object`: short enough for a one-line message, never a whole body. */
export function shown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  return String(value);
}

/** Fields whose value is a credential: a rejected one is described by its type, never quoted. */
const SECRET_FIELD = /pass(?:word|wd)?$|secret|token|api_?key|authorization/i;

/** `a number`, `an object`: what a rejected secret is, without its value. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
};

const shownValue = shown;

const items = (count: number | bigint) => (count === 1 ? 'item' : 'items');
const lengthOf = (input: unknown) => String((input as unknown[] | undefined)?.length);

/** Words a zod issue with the allowed values and what was sent (the browser client's style). */
export function describeIssue(issue: RequestIssue): string {
  // zod omits `input` only when the key is absent (undefined is never "reported").
  const missing = !('input' in issue) || issue.input === undefined;
  const field = String(issue.path.at(-1) ?? '');
  const shown = SECRET_FIELD.test(field) ? kindOf : shownValue;
  switch (issue.code) {
    case 'invalid_value': {
      const allowed = issue.values.map(String).join(', ');
      return missing
        ? `is required: one of ${allowed}`
        : `must be one of ${allowed} (got ${shown(issue.input)})`;
    }
    case 'invalid_type': {
      if (missing) return 'is required';
      const expected = ARTICLE[issue.expected] ?? issue.expected;
      return `must be ${expected} (got ${shown(issue.input)})`;
    }
    case 'too_small':
      if (issue.origin === 'string') return 'must not be empty';
      if (issue.origin === 'array') {
        return `must have at least ${String(issue.minimum)} ${items(issue.minimum)} (got ${lengthOf(issue.input)})`;
      }
      return `must be ${issue.inclusive ? '>=' : '>'} ${String(issue.minimum)} (got ${shown(issue.input)})`;
    case 'too_big':
      if (issue.origin === 'string') {
        return `must be at most ${String(issue.maximum)} characters (got ${String((issue.input as string | undefined)?.length)})`;
      }
      if (issue.origin === 'array') {
        return `must have at most ${String(issue.maximum)} ${items(issue.maximum)} (got ${lengthOf(issue.input)})`;
      }
      return `must be ${issue.inclusive ? '<=' : '<'} ${String(issue.maximum)} (got ${shown(issue.input)})`;
    default:
      return issue.message;
  }
}

/** `parseRequest` worded by `describeIssue`: each message lists the allowed values and what was sent. */
export function parseWire<S extends z.ZodType>(
  what: string,
  schema: S,
  input: unknown,
  argument = 'body',
): z.output<S> {
  return parseRequest(what, schema, input, { describe: describeIssue, argument });
}
