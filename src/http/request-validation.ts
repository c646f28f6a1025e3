/**
 * The one step from a zod schema to a RequestValidationError, for both API clients: a call
 * whose input breaks a rule the client knows is never sent (nor charged).
 */
import type { z } from 'zod';
import { RequestValidationError } from './errors.js';

/** A zod issue with the offending input attached (`reportInput`). */
export type RequestIssue = z.core.$ZodIssue & { input?: unknown };

/**
 * Parses `input` with `schema`, or throws a RequestValidationError naming `what` and each
 * field. `describe` words one issue; default: the schema's own message.
 */
export function parseRequest<S extends z.ZodType>(
  what: string,
  schema: S,
  input: unknown,
  describe: (issue: RequestIssue) => string = (issue) => issue.message,
): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw new RequestValidationError(
    what,
    result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.'),
      message: describe(issue as RequestIssue),
    })),
  );
}
