/**
 * The issues of an options object parsed by a strict zod schema, as a RequestValidationError
 * lists them: every unknown key by its whole path (`network.rtt`) with the keys that exist
 * there, read from the schema itself (no key list kept by hand), and first, since the other
 * issues are often its consequence (`min` sent for `minMs`); the rest in the client's words.
 */
import type { z } from 'zod';
import { describeIssue, type RequestIssue } from '../http/request-validation.js';
import { unwrap } from './server/wire.js';

export interface OptionIssue {
  path: string;
  message: string;
}

export function optionIssues(schema: z.ZodType, error: z.ZodError): OptionIssue[] {
  const issues = issuesOf(schema, error.issues);
  const depth = (path: string) => path.split('.').length;
  const misspelt = issues
    .filter((i) => i.message.startsWith('is not an option'))
    .sort((a, b) => depth(a.path) - depth(b.path));
  return [...misspelt, ...issues.filter((i) => !misspelt.includes(i))];
}

/**
 * One issue per unknown key, named by its whole path with the keys that exist there; a union
 * (`delay`, `rateLimits`) is read through the one branch the value's type chose.
 */
function issuesOf(
  root: z.ZodType,
  issues: readonly z.core.$ZodIssue[],
  prefix: PropertyKey[] = [],
): OptionIssue[] {
  return issues.flatMap((issue): OptionIssue[] => {
    const path = [...prefix, ...issue.path];
    const at = path.map(String).join('.');
    if (issue.code === 'invalid_union' && isGeneric(issue)) {
      const chosen = issue.errors.filter((branch) => !branch.every(wrongTypeAtRoot));
      if (chosen.length === 1) return issuesOf(root, chosen[0] as z.core.$ZodIssue[], path);
    }
    if (issue.code !== 'unrecognized_keys') {
      const message = isGeneric(issue) ? describeIssue(issue as RequestIssue) : issue.message;
      return [{ path: at, message }];
    }
    const known = knownKeysAt(root, path);
    return issue.keys.map((key) => ({
      path: at ? `${at}.${key}` : key,
      message: `is not an option${at ? ` of ${at}` : ''} (known: ${known.join(', ')})`,
    }));
  });
}

/** zod's own wording (`Invalid input: …`), which a rule's own message replaces. */
const isGeneric = (issue: z.core.$ZodIssue) =>
  /^(Invalid|Too (big|small)|Unrecognized)/.test(issue.message);

const wrongTypeAtRoot = (issue: z.core.$ZodIssue) =>
  issue.path.length === 0 && ['invalid_type', 'invalid_value', 'custom'].includes(issue.code);

/** The keys of the object schema at `path` (through its wrappers and unions). */
function knownKeysAt(root: z.ZodType, path: readonly PropertyKey[]): string[] {
  const shapeOf = (schema: z.ZodType): Record<string, z.ZodType> | undefined => {
    const def = unwrap(schema).def as unknown as Record<string, unknown> & { type: string };
    if (def.type === 'object') return def.shape as Record<string, z.ZodType>;
    if (def.type === 'union') {
      for (const option of def.options as z.ZodType[]) {
        const shape = shapeOf(option);
        if (shape) return shape;
      }
    }
    return undefined;
  };
  let shape = shapeOf(root);
  for (const key of path) {
    const child = shape?.[String(key)];
    shape = child ? shapeOf(child) : undefined;
  }
  return Object.keys(shape ?? {});
}
