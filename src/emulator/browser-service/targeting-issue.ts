/**
 * The first pass of every targeting check: a session body read with the client's own create
 * schema (`SessionCreateParamsSchema`), each refusal worded as the spec's issue: `invalid_type`
 * for a wrong JSON type, `unsupported_<field>` with the enum's values, `conflicting_quality_filter`
 * for the client's quality-flag rule. A change to a client field (its type, its enum) is a change
 * of what the emulator accepts. The server's own rules (password, dataset, profiles) are the
 * second pass, in `targeting.ts`, over the typed value this pass returns.
 */
import type { z } from 'zod';
import type { TargetingIssue } from '../../browser-api/schemas/configurations.js';
import { SessionCreateParamsSchema } from '../../browser-api/schemas/sessions.js';
import { MinutesSchema } from '../../browser-api/schemas/vocabulary.js';
import { lazySchema } from '../../http/lazy-schema.js';
import { describeIssue, type RequestIssue } from '../../http/request-validation.js';
import { unwrap } from '../server/wire.js';

/** The client's `PreflightIssue`: one type at both ends. */
export type Issue = TargetingIssue;

/** One issue, as every targeting check builds it. */
export const issue = (
  code: string,
  field: string,
  message: string,
  suggestion?: string,
): Issue => ({
  code,
  field,
  message,
  suggestion,
});

/** The body as the client's schema types it, the fields it refused left out. */
export type SessionBody = Partial<z.output<typeof SessionCreateParamsSchema>>;

/** Why a field was left out: a wrong JSON type, or a value of the right type the schema refuses. */
export type Refusal = 'type' | 'value';

export interface ReadBody {
  value: SessionBody;
  refused: ReadonlyMap<string, Refusal>;
  /** `invalid_type` issues, and the others: the password's issue is reported between them. */
  typeIssues: Issue[];
  valueIssues: Issue[];
}

/**
 * Fields whose server rule is stricter than the client's format (an empty password does not
 * match, an empty id names no profile): a string the format refuses is judged by that rule.
 */
const SERVER_JUDGED: ReadonlySet<string> = new Set(['proxy_password', 'profile_id']);

/**
 * The client's create schema with every field optional: whether the password must be sent is
 * the create's rule, not `/configurations/validate`'s, and is checked in the second pass. The
 * client's refinement (the quality-flag conflict) is kept.
 */
const lenientSchema = lazySchema(() => {
  const shape = SessionCreateParamsSchema.shape;
  const optional = Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [key, field.optional()]),
  );
  return SessionCreateParamsSchema.safeExtend(optional as unknown as typeof shape);
});

/**
 * Reads `body` (an object, `null`s already dropped) with the client's schema. A refused field is
 * worded and left out, and the rest read again, so that every field's refusal is reported and the
 * client's refinement runs over the fields that passed.
 */
export function readSessionBody(body: Record<string, unknown>): ReadBody {
  const shape = lenientSchema.shape as Record<string, z.ZodType>;
  const rest = { ...body };
  const judged: Record<string, string> = {};
  for (const field of SERVER_JUDGED) {
    const value = rest[field];
    if (typeof value === 'string' && shape[field]?.safeParse(value).success === false) {
      judged[field] = value;
      delete rest[field];
    }
  }
  const refused = new Map<string, Refusal>();
  const typeIssues: Issue[] = [];
  const valueIssues: Issue[] = [];
  for (;;) {
    const result = lenientSchema.safeParse(rest);
    if (result.success) {
      return { value: { ...result.data, ...judged }, refused, typeIssues, valueIssues };
    }
    for (const zodIssue of result.error.issues) {
      const field = String(zodIssue.path[0] ?? '');
      // Only a field that was sent can be left out; anything else would never end.
      if (!(field in rest)) throw new Error(`the session schema refuses "${field}", not sent`);
      if (refused.has(field)) continue;
      const worded = word(field, shape[field] as z.ZodType, rest, zodIssue);
      const refusal = worded.code === 'invalid_type' ? 'type' : 'value';
      refused.set(field, refusal);
      (refusal === 'type' ? typeIssues : valueIssues).push(worded);
    }
    for (const field of refused.keys()) delete rest[field];
  }
}

/** The spec's issue for the client schema's refusal of `field`, in the words of its type. */
function word(
  field: string,
  schema: z.ZodType,
  body: Record<string, unknown>,
  zodIssue: z.core.$ZodIssue,
): Issue {
  const inner = unwrap(schema);
  const value = body[field];
  const type = inner.def.type;
  if (zodIssue.code === 'invalid_value' && typeof value === 'string') {
    const allowed = zodIssue.values.join(', ');
    const message = `${field} "${value}" is not supported; allowed values: ${allowed}`;
    return issue(`unsupported_${field}`, field, message, `Use one of: ${allowed}`);
  }
  if (zodIssue.code === 'custom' && field === 'quality_filter_enabled') {
    const message = `${field} ${String(value)} contradicts filter_mode "${String(body.filter_mode)}"`;
    const suggestion = 'Send only filter_mode (quality_filter_enabled is deprecated)';
    return issue('conflicting_quality_filter', field, message, suggestion);
  }
  if ((type === 'string' || type === 'enum') && typeof value !== 'string') {
    return issue('invalid_type', field, `${field} must be a string`, undefined);
  }
  if (type === 'boolean') {
    return issue('invalid_type', field, `${field} must be a boolean`, 'Use true or false');
  }
  // Any number the schema refuses (not one, not whole, below its minimum) is of the wrong kind.
  if (type === 'number') {
    const { isInt, minValue } = inner as z.ZodNumber;
    const kind = isInt ? 'an integer' : 'a number';
    const rule = minValue !== null && minValue > Number.MIN_SAFE_INTEGER ? ` >= ${minValue}` : '';
    const minutes = inner.def === MinutesSchema.def ? '0 uses the account limit' : undefined;
    return issue('invalid_type', field, `${field} must be ${kind}${rule}`, minutes);
  }
  const code = zodIssue.code === 'invalid_type' ? 'invalid_type' : `invalid_${field}`;
  return issue(code, field, `${field} ${describeIssue(zodIssue as RequestIssue)}`, undefined);
}
