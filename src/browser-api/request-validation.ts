/**
 * Request checks that run before anything is sent: a wrong enum, a missing `proxy_password` or
 * a negative duration is a bug in the caller's code, and the service would reject it anyway
 * (after billing a session, in the worst case). Messages name the field and the allowed values,
 * in the service's own vocabulary, so they can be looked up in the spec.
 */
import type { z } from 'zod';
import { RequestValidationError } from '../http/errors.js';
import { parseRequest as parseWith, type RequestIssue } from '../http/request-validation.js';

/**
 * Parses a request body or query, wording each issue in the service's vocabulary (the allowed
 * values, what was sent).
 */
export function parseRequest<S extends z.ZodType>(
  what: string,
  schema: S,
  input: unknown,
): z.output<S> {
  return parseWith(what, schema, input, describeIssue);
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

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
};

function describeIssue(issue: RequestIssue): string {
  // zod omits `input` only when the key is absent (undefined is never "reported").
  const missing = !('input' in issue) || issue.input === undefined;
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
      return `must be ${issue.inclusive ? '>=' : '>'} ${String(issue.minimum)} (got ${shown(issue.input)})`;
    case 'too_big':
      return `must be ${issue.inclusive ? '<=' : '<'} ${String(issue.maximum)} (got ${shown(issue.input)})`;
    default:
      return issue.message;
  }
}
